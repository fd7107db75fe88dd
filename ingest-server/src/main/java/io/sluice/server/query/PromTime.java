package io.sluice.server.query;

import io.sluice.promql.PromQLException;
import io.sluice.promql.parse.GoStrings;
import io.sluice.promql.parse.Parser;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
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
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    /** Beyond this many seconds a time in milliseconds does not fit a long. */
    private static final double MAX_SECONDS = 9.2e15;

    private PromTime() {
    }

    /**
     * A time in milliseconds as Prometheus' {@code parseTime} reads it ({@code start} and {@code end} of a
     * range query, where "" is malformed too); {@link ApiError} (400) naming the parameter if malformed.
     */
    static long parseTimeMs(String text, String parameter) throws ApiError {
        long ms = timeMs(text);
        if (ms == NOT_A_TIME) {
            throw ApiError.badData("invalid parameter \"" + parameter + "\": cannot parse " + GoStrings.quote(text) + " to a valid timestamp");
        }
        return ms;
    }

    /**
     * An optional time parameter as Prometheus' {@code parseTimeParam} reads it (every time but a range
     * query's): {@code defaultMs} when absent or empty, its error text naming the parameter twice.
     */
    static long parseTimeParamMs(String text, String parameter, long defaultMs) throws ApiError {
        if (text == null || text.isEmpty()) {
            return defaultMs;
        }
        long ms = timeMs(text);
        if (ms == NOT_A_TIME) {
            throw ApiError.badData("invalid parameter \"" + parameter + "\": invalid time value for '" + parameter
                    + "': cannot parse " + GoStrings.quote(text) + " to a valid timestamp");
        }
        return ms;
    }

    private static final long NOT_A_TIME = Long.MIN_VALUE;

    private static long timeMs(String text) {
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
                // not a time
            }
        }
        return NOT_A_TIME;
    }

    /**
     * A duration parameter (float seconds or a duration, Prometheus' {@code parseDuration}) in
     * milliseconds; {@link ApiError} with Prometheus' text, {@code prefix} before it, if malformed.
     */
    static long parseDurationParamMs(String text, String prefix) throws ApiError {
        try {
            return Parser.parseDuration(text);
        } catch (PromQLException e) {
            throw ApiError.badData(prefix + e.getMessage());
        }
    }
}
