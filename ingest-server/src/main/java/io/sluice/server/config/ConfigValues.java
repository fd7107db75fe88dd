package io.sluice.server.config;

import java.util.Locale;

/**
 * Parsers for the value syntaxes of the configuration: sizes ({@code 128MiB}, {@code 64KB},
 * {@code 4096}) and durations ({@code 100ms}, {@code 5s}, {@code 2m}, {@code 1h}; a bare number is
 * milliseconds). They return null for text that does not parse; the caller words the error.
 */
public final class ConfigValues {
    private static final String[] SIZE_UNITS = {"KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "B"};
    private static final long[] SIZE_FACTORS = {1L << 10, 1L << 20, 1L << 30, 1L << 40, 1_000L, 1_000_000L,
            1_000_000_000L, 1_000_000_000_000L, 1};
    private static final String[] DURATION_UNITS = {"ms", "s", "m", "h", "d"};
    private static final long[] DURATION_FACTORS_MS = {1, 1_000, 60_000, 3_600_000, 86_400_000};

    private ConfigValues() {
    }

    /** Bytes of a size like {@code 128MiB} (binary), {@code 10MB} (decimal) or {@code 4096}; null if malformed. */
    public static Long parseBytes(String text) {
        String t = text.strip();
        for (int i = 0; i < SIZE_UNITS.length; i++) {
            if (t.endsWith(SIZE_UNITS[i])) {
                return scaled(t.substring(0, t.length() - SIZE_UNITS[i].length()), SIZE_FACTORS[i]);
            }
        }
        return scaled(t, 1);
    }

    /** Milliseconds of a duration like {@code 100ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d}, or a bare number of ms. */
    public static Long parseDurationMs(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.endsWith("ms")) {
            return scaled(t.substring(0, t.length() - 2), 1);
        }
        for (int i = 1; i < DURATION_UNITS.length; i++) {
            if (t.endsWith(DURATION_UNITS[i])) {
                return scaled(t.substring(0, t.length() - 1), DURATION_FACTORS_MS[i]);
            }
        }
        return scaled(t, 1);
    }

    /** A whole number; underscores are allowed as digit separators ({@code 2_000_000}); null if malformed. */
    static Long parseLong(String text) {
        return scaled(text.strip(), 1);
    }

    /** {@code true} or {@code false} (any case); null otherwise. */
    static Boolean parseBoolean(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> null;
        };
    }

    private static Long scaled(String number, long factor) {
        String digits = number.strip().replace("_", "");
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(Character::isDigit)) {
            return null;
        }
        try {
            return Math.multiplyExact(Long.parseLong(digits), factor);
        } catch (ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    /** A duration in the largest unit that holds it exactly: {@code 300000} → {@code 5m}, {@code 100} → {@code 100ms}. */
    static String formatDurationMs(long ms) {
        for (int i = DURATION_UNITS.length - 1; i > 0; i--) {
            if (ms >= DURATION_FACTORS_MS[i] && ms % DURATION_FACTORS_MS[i] == 0) {
                return ms / DURATION_FACTORS_MS[i] + DURATION_UNITS[i];
            }
        }
        return ms + "ms";
    }

    /** A size for messages and defaults: {@code 134217728} → {@code 128MiB}. */
    static String formatBytes(long bytes) {
        for (int i = 3; i >= 0; i--) {
            if (bytes >= SIZE_FACTORS[i] && bytes % SIZE_FACTORS[i] == 0) {
                return bytes / SIZE_FACTORS[i] + SIZE_UNITS[i];
            }
        }
        return bytes + "B";
    }
}
