package io.sluice.promql.script;

/**
 * The durations of the promqltest language ({@code load 1m}, {@code eval instant at 1h30m}): Prometheus'
 * model durations, a sequence of {@code <digits><unit>} with units {@code y w d h m s ms} in decreasing
 * order, or a bare {@code 0}. No sign, no fractions.
 */
public final class Durations {
    private static final String[] UNITS = {"y", "w", "d", "h", "m", "s", "ms"};
    private static final long[] UNIT_MS = {365L * 24 * 3600_000, 7L * 24 * 3600_000, 24L * 3600_000, 3600_000, 60_000, 1000, 1};

    private Durations() {
    }

    /** Milliseconds of {@code s}; throws {@link ScriptException} with Prometheus' wording when it is not a duration. */
    public static long parse(String s) {
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()) {
            throw new ScriptException("empty duration string");
        }
        long total = 0;
        int lastUnit = -1;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                throw notValid(s);
            }
            long v;
            try {
                v = Long.parseLong(s.substring(start, i));
            } catch (NumberFormatException e) {
                throw notValid(s);
            }
            int unitStart = i;
            while (i < s.length() && !isDigit(s.charAt(i))) {
                i++;
            }
            if (i == unitStart) {
                throw notValid(s);
            }
            String unit = s.substring(unitStart, i);
            int u = unitIndex(unit);
            if (u < 0) {
                throw new ScriptException("unknown unit \"" + unit + "\" in duration \"" + s + "\"");
            }
            if (u <= lastUnit) {
                throw notValid(s);
            }
            lastUnit = u;
            if (v > Long.MAX_VALUE / UNIT_MS[u] || total + v * UNIT_MS[u] < 0) {
                throw new ScriptException("duration out of range");
            }
            total += v * UNIT_MS[u];
        }
        return total;
    }

    private static int unitIndex(String unit) {
        for (int i = 0; i < UNITS.length; i++) {
            if (UNITS[i].equals(unit)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static ScriptException notValid(String s) {
        return new ScriptException("not a valid duration string: \"" + s + "\"");
    }
}
