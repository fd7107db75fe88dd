package io.sluice.promql.eval.kernels;

/**
 * The date functions on a Unix time in seconds, UTC, with Go's calendar: the value is truncated to
 * whole seconds as Go's {@code int64(f)} does (NaN, ±Inf and values beyond the 64-bit range become the
 * smallest 64-bit value, as Go's conversion yields on amd64), and years are proleptic Gregorian without
 * bound (Go's {@code time} reaches far beyond {@code java.time}'s range).
 */
public final class DateKernels {
    private DateKernels() {
    }

    /** Go's answers for the smallest 64-bit second (what NaN and ±Inf convert to). */
    private static final double[] AT_MIN = {292277026596.0, 12, 4, 0, 339, 31, 15, 30};

    private static final int YEAR = 0;
    private static final int MONTH = 1;
    private static final int DAY = 2;
    private static final int WEEKDAY = 3;
    private static final int YEAR_DAY = 4;
    private static final int DAYS_IN_MONTH = 5;
    private static final int HOUR = 6;
    private static final int MINUTE = 7;

    public static double year(double seconds) {
        return field(seconds, YEAR);
    }

    public static double month(double seconds) {
        return field(seconds, MONTH);
    }

    public static double dayOfMonth(double seconds) {
        return field(seconds, DAY);
    }

    /** Sunday is 0. */
    public static double dayOfWeek(double seconds) {
        return field(seconds, WEEKDAY);
    }

    public static double dayOfYear(double seconds) {
        return field(seconds, YEAR_DAY);
    }

    public static double daysInMonth(double seconds) {
        return field(seconds, DAYS_IN_MONTH);
    }

    public static double hour(double seconds) {
        return field(seconds, HOUR);
    }

    public static double minute(double seconds) {
        return field(seconds, MINUTE);
    }

    /** Go's {@code int64(f)} on amd64: truncation; NaN and out-of-range values give the smallest long. */
    static long goInt64(double f) {
        if (Double.isNaN(f) || f >= 9.223372036854775807E18 || f < -9.223372036854775808E18) {
            return Long.MIN_VALUE;
        }
        return (long) f;
    }

    private static double field(double seconds, int which) {
        long s = goInt64(seconds);
        if (s == Long.MIN_VALUE) {
            return AT_MIN[which];
        }
        long days = Math.floorDiv(s, 86_400L);
        long secOfDay = Math.floorMod(s, 86_400L);
        switch (which) {
            case HOUR:
                return secOfDay / 3600;
            case MINUTE:
                return (secOfDay % 3600) / 60;
            case WEEKDAY:
                return Math.floorMod(days + 4, 7); // 1970-01-01 was a Thursday
            default:
                break;
        }
        // Civil date from days since 1970-01-01 (eras of 400 years, March-based years).
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long y = yoe + era * 400;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long d = doy - (153 * mp + 2) / 5 + 1;
        long m = mp < 10 ? mp + 3 : mp - 9;
        if (m <= 2) {
            y++;
        }
        return switch (which) {
            case YEAR -> y;
            case MONTH -> m;
            case DAY -> d;
            case DAYS_IN_MONTH -> daysInMonth(y, m);
            default -> dayOfYear(y, m, d);
        };
    }

    private static boolean leap(long y) {
        return Math.floorMod(y, 4) == 0 && (Math.floorMod(y, 100) != 0 || Math.floorMod(y, 400) == 0);
    }

    private static int daysInMonth(long y, long m) {
        return switch ((int) m) {
            case 2 -> leap(y) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    private static long dayOfYear(long y, long m, long d) {
        long doy = d;
        for (int i = 1; i < m; i++) {
            doy += daysInMonth(y, i);
        }
        return doy;
    }
}
