package io.sluice.server.format.json;

/**
 * Parses an RFC 3339 date-time ({@code 2020-01-01T00:00:00Z}, {@code 2020-01-01T01:00:00.123456+01:00})
 * in place to epoch milliseconds, as Go's {@code time.Parse(time.RFC3339, ...)} accepts it: a four-digit
 * year, 'T' (or 't'), seconds 00–59, an optional fraction of 1 to 9 digits (cut to milliseconds, rounding
 * toward the past), and 'Z' (or 'z') or a ±hh:mm offset. Allocation-free.
 */
final class Rfc3339 {
    /** Returned for text that is not such a date-time; no valid one maps to it (year 0000 is later). */
    static final long INVALID = Long.MIN_VALUE;

    private static final int MAX_FRACTION_DIGITS = 9;

    private Rfc3339() {
    }

    /** The epoch milliseconds of {@code b[off, off + len)}, or {@link #INVALID}. */
    static long parseMillis(byte[] b, int off, int len) {
        int end = off + len;
        if (len < 20 || b[off + 4] != '-' || b[off + 7] != '-' || (b[off + 10] | 0x20) != 't'
                || b[off + 13] != ':' || b[off + 16] != ':') {
            return INVALID;
        }
        int year = digits(b, off, 4);
        int month = digits(b, off + 5, 2);
        int day = digits(b, off + 8, 2);
        int hour = digits(b, off + 11, 2);
        int minute = digits(b, off + 14, 2);
        int second = digits(b, off + 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return INVALID;
        }
        int p = off + 19;
        int millis = 0;
        if (b[p] == '.') {
            int fractionStart = ++p;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                if (p - fractionStart < 3) {
                    millis = millis * 10 + (b[p] - '0');
                }
                p++;
            }
            int fractionDigits = p - fractionStart;
            if (fractionDigits == 0 || fractionDigits > MAX_FRACTION_DIGITS) {
                return INVALID;
            }
            for (int d = fractionDigits; d < 3; d++) {
                millis *= 10;
            }
        }
        int offsetSeconds = offsetSeconds(b, p, end);
        if (offsetSeconds == Integer.MIN_VALUE) {
            return INVALID;
        }
        long seconds = daysFromCivil(year, month, day) * 86_400L + hour * 3_600L + minute * 60L + second - offsetSeconds;
        return seconds * 1000 + millis;
    }

    /** "Z", "z" or ±hh:mm at {@code p} running exactly to {@code end}, in seconds east of UTC; MIN_VALUE if not. */
    private static int offsetSeconds(byte[] b, int p, int end) {
        if (p + 1 == end && (b[p] | 0x20) == 'z') {
            return 0;
        }
        if (p + 6 != end || (b[p] != '+' && b[p] != '-') || b[p + 3] != ':') {
            return Integer.MIN_VALUE;
        }
        int hours = digits(b, p + 1, 2);
        int minutes = digits(b, p + 4, 2);
        if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59) {
            return Integer.MIN_VALUE;
        }
        int seconds = hours * 3600 + minutes * 60;
        return b[p] == '-' ? -seconds : seconds;
    }

    /** The decimal value of {@code n} ASCII digits, or -1 if one is not a digit. */
    private static int digits(byte[] b, int p, int n) {
        int value = 0;
        for (int i = p; i < p + n; i++) {
            if (b[i] < '0' || b[i] > '9') {
                return -1;
            }
            value = value * 10 + (b[i] - '0');
        }
        return value;
    }

    private static int daysInMonth(int year, int month) {
        return switch (month) {
            case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
    static long daysFromCivil(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }
}
