package io.sluice.server.query;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Times and durations as Prometheus' HTTP API and PromQL read them.
 *
 * <ul>
 * <li>A time is unix seconds with an optional fraction ({@code 1700000000.123}, rounded to
 * milliseconds) or RFC 3339 ({@code 2023-11-14T22:13:20.123Z}, truncated to milliseconds).</li>
 * <li>A duration is Prometheus' {@code [0-9]+(y|w|d|h|m|s|ms)} units, largest first and combined
 * ({@code 1h30m}; {@code y} = 365d, {@code w} = 7d); as an API parameter also float seconds
 * ({@code 15}, {@code 0.5}).</li>
 * </ul>
 */
final class PromTime {
    /** Prometheus' model.ParseDuration: each unit at most once, in this order. */
    private static final Pattern DURATION = Pattern.compile(
            "(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?(?:([0-9]+)ms)?");
    private static final long[] UNIT_MS = {365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000, 1};
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    /** Beyond this many seconds a time in milliseconds does not fit a long. */
    private static final double MAX_SECONDS = 9.2e15;

    private PromTime() {
    }

    /** A time parameter in milliseconds; {@link ApiError} (400) naming the parameter if malformed. */
    static long parseTimeMs(String text, String parameter) throws ApiError {
        if (DECIMAL.matcher(text).matches()) {
            double seconds = Double.parseDouble(text);
            if (Math.abs(seconds) < MAX_SECONDS) {
                long whole = (long) seconds;
                double fractionMs = (seconds - whole) * 1000;
                return whole * 1000 + (long) (Math.signum(fractionMs) * Math.round(Math.abs(fractionMs)));
            }
        } else {
            try {
                return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                // fall through to the error below
            }
        }
        throw ApiError.badData("invalid parameter \"" + parameter + "\": cannot parse \"" + text + "\" to a valid timestamp");
    }

    /** A duration parameter (float seconds or a duration) in milliseconds. */
    static long parseDurationParamMs(String text, String parameter) throws ApiError {
        if (DECIMAL.matcher(text).matches()) {
            double ms = Double.parseDouble(text) * 1000;
            if (Math.abs(ms) < Long.MAX_VALUE) {
                return (long) ms;
            }
        } else {
            long ms = parseDurationMs(text);
            if (ms >= 0) {
                return ms;
            }
        }
        throw ApiError.badData("invalid parameter \"" + parameter + "\": cannot parse \"" + text + "\" to a valid duration");
    }

    /** A Prometheus duration ({@code 5m}, {@code 1h30m}) in milliseconds, or -1 if malformed or too long. */
    static long parseDurationMs(String text) {
        if (text.isEmpty()) {
            return -1;
        }
        if (text.equals("0")) {
            return 0;
        }
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            return -1;
        }
        long total = 0;
        try {
            for (int unit = 0; unit < UNIT_MS.length; unit++) {
                String n = m.group(unit + 1);
                if (n != null) {
                    total = Math.addExact(total, Math.multiplyExact(Long.parseLong(n), UNIT_MS[unit]));
                }
            }
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
        return total;
    }
}
