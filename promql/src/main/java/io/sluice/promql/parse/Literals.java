package io.sluice.promql.parse;

/** Number, duration and string literals with Go's ({@code strconv}, Prometheus' {@code model.ParseDuration}) rules. */
final class Literals {
    private Literals() {
    }

    /** Thrown with Go's error text; the caller adds the position. */
    static final class LiteralException extends Exception {
        LiteralException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A lexed NUMBER token's value: an integer with Go's base prefixes ({@code 0x1F}, a leading 0 for
     * octal, underscores), else a float ({@code 1e3}, {@code .5}, {@code Inf}, {@code NaN}).
     */
    static double number(String text) throws LiteralException {
        if (text.indexOf('_') >= 0 && !underscoreOk(text)) {
            throw new LiteralException("strconv.ParseFloat: parsing " + GoStrings.quote(text) + ": invalid syntax");
        }
        Long asInt = goInt(text);
        if (asInt != null) {
            return asInt;
        }
        return goFloat(text);
    }

    /** Go's rule for underscores in number literals: only between digits, or after a base prefix. */
    private static boolean underscoreOk(String s) {
        char saw = '^';
        int i = 0;
        boolean hex = false;
        if (s.length() >= 2 && s.charAt(0) == '0' && "bBoOxX".indexOf(s.charAt(1)) >= 0) {
            i = 2;
            saw = '0';
            hex = Character.toLowerCase(s.charAt(1)) == 'x';
        }
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            char l = Character.toLowerCase(c);
            if ((c >= '0' && c <= '9') || (hex && l >= 'a' && l <= 'f')) {
                saw = '0';
                continue;
            }
            if (c == '_') {
                if (saw != '0') {
                    return false;
                }
                saw = '_';
                continue;
            }
            if (saw == '_') {
                return false;
            }
            saw = '!';
        }
        return saw != '_';
    }

    private static Long goInt(String s) {
        String digits = s;
        int base = 10;
        if (s.length() > 1 && s.charAt(0) == '0') {
            char c = Character.toLowerCase(s.charAt(1));
            if (c == 'x') {
                base = 16;
                digits = s.substring(2);
            } else if (c == 'o') {
                base = 8;
                digits = s.substring(2);
            } else if (c == 'b') {
                base = 2;
                digits = s.substring(2);
            } else {
                base = 8;
                digits = s.substring(1);
            }
        }
        digits = digits.replace("_", "");
        if (digits.isEmpty()) {
            return null;
        }
        long v = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = Character.digit(digits.charAt(i), base);
            if (d < 0) {
                return null;
            }
            if (v > (Long.MAX_VALUE - d) / base) {
                return null;
            }
            v = v * base + d;
        }
        return v;
    }

    private static final java.util.regex.Pattern DECIMAL = java.util.regex.Pattern.compile("[0-9]*\\.?[0-9]*([eE][+-]?[0-9]+)?");

    private static double goFloat(String s) throws LiteralException {
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        switch (lower) {
            case "inf", "+inf", "infinity", "+infinity" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf", "-infinity" -> {
                return Double.NEGATIVE_INFINITY;
            }
            case "nan" -> {
                return Double.NaN;
            }
            default -> {
            }
        }
        String t = s.replace("_", "");
        if (lower.startsWith("0x") || t.isEmpty() || !DECIMAL.matcher(t).matches()) {
            throw new LiteralException("strconv.ParseFloat: parsing " + GoStrings.quote(s) + ": invalid syntax");
        }
        double v = Double.parseDouble(t);
        if (Double.isInfinite(v)) {
            throw new LiteralException("strconv.ParseFloat: parsing " + GoStrings.quote(s) + ": value out of range");
        }
        return v;
    }

    private static final String[] UNITS = {"y", "w", "d", "h", "m", "s", "ms"};
    private static final long[] UNIT_NANOS = {
        365L * 24 * 3600 * 1_000_000_000L, 7L * 24 * 3600 * 1_000_000_000L, 24L * 3600 * 1_000_000_000L,
        3600L * 1_000_000_000L, 60L * 1_000_000_000L, 1_000_000_000L, 1_000_000L};

    /** Prometheus' duration syntax ({@code 1h30m}, {@code 5ms}, {@code 0}) in nanoseconds. */
    static long durationNanos(String s) throws LiteralException {
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()) {
            throw new LiteralException("empty duration string");
        }
        String invalid = "not a valid duration string: " + GoStrings.quote(s);
        long total = 0;
        int lastUnit = -1;
        int i = 0;
        while (i < s.length()) {
            int j = i;
            while (j < s.length() && Lexer.isDigit(s.charAt(j))) {
                j++;
            }
            if (j == i) {
                throw new LiteralException(invalid);
            }
            long v;
            try {
                v = Long.parseUnsignedLong(s.substring(i, j));
            } catch (NumberFormatException e) {
                throw new LiteralException(invalid);
            }
            int k = j;
            while (k < s.length() && !Lexer.isDigit(s.charAt(k))) {
                k++;
            }
            if (k == j) {
                throw new LiteralException(invalid);
            }
            String unit = s.substring(j, k);
            int u = java.util.Arrays.asList(UNITS).indexOf(unit);
            if (u < 0) {
                throw new LiteralException("unknown unit " + GoStrings.quote(unit) + " in duration " + GoStrings.quote(s));
            }
            if (u <= lastUnit) {
                throw new LiteralException(invalid);
            }
            lastUnit = u;
            if (v < 0 || v > Long.MAX_VALUE / UNIT_NANOS[u]) {
                throw new LiteralException("duration out of range");
            }
            long add = v * UNIT_NANOS[u];
            if (add < 0 || total + add < 0) {
                throw new LiteralException("duration out of range");
            }
            total += add;
            i = k;
        }
        return total;
    }

    /** Go's {@code math.Round}: half away from zero. */
    static long goRound(double v) {
        return v < 0 ? -Math.round(-v) : Math.round(v);
    }

    /** Seconds (as a PromQL number literal holds a duration) to milliseconds, as Prometheus converts. */
    static long secondsToMillis(double seconds) {
        return goRound(seconds * 1e9) / 1_000_000L;
    }

    /** Whether seconds, as nanoseconds, overflow a Go {@code time.Duration}. */
    static boolean durationOutOfRange(double seconds) {
        return seconds > 9.223372036854775807e9 || seconds < -9.223372036854775808e9;
    }

    /** Unquotes a lexed (already validated) single- or double-quoted string: Go escapes, {@code \x}/octal as bytes. */
    static String unquote(String text) {
        String body = text.substring(1, text.length() - 1);
        if (body.indexOf('\\') < 0) {
            return body;
        }
        byte[] out = new byte[body.length() * 4 + 4];
        int len = 0;
        for (int i = 0; i < body.length(); ) {
            int cp = body.codePointAt(i);
            if (cp != '\\') {
                len = putUtf8(out, len, cp);
                i += Character.charCount(cp);
                continue;
            }
            char e = body.charAt(i + 1);
            i += 2;
            switch (e) {
                case 'a' -> out[len++] = 7;
                case 'b' -> out[len++] = '\b';
                case 'f' -> out[len++] = '\f';
                case 'n' -> out[len++] = '\n';
                case 'r' -> out[len++] = '\r';
                case 't' -> out[len++] = '\t';
                case 'v' -> out[len++] = 11;
                case '\\', '\'', '"' -> out[len++] = (byte) e;
                case 'x' -> {
                    out[len++] = (byte) Integer.parseInt(body.substring(i, i + 2), 16);
                    i += 2;
                }
                case 'u' -> {
                    len = putUtf8(out, len, Integer.parseInt(body.substring(i, i + 4), 16));
                    i += 4;
                }
                case 'U' -> {
                    len = putUtf8(out, len, (int) Long.parseLong(body.substring(i, i + 8), 16));
                    i += 8;
                }
                default -> {
                    // octal: e is the first of three digits
                    out[len++] = (byte) Integer.parseInt(body.substring(i - 1, i + 2), 8);
                    i += 2;
                }
            }
        }
        return GoStrings.utf8(out, len);
    }

    private static int putUtf8(byte[] out, int len, int cp) {
        if (cp < 0x80) {
            out[len++] = (byte) cp;
        } else if (cp < 0x800) {
            out[len++] = (byte) (0xC0 | (cp >> 6));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[len++] = (byte) (0xE0 | (cp >> 12));
            out[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        } else {
            out[len++] = (byte) (0xF0 | (cp >> 18));
            out[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
            out[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        }
        return len;
    }

    static int digitVal(int ch) {
        if (ch >= '0' && ch <= '9') {
            return ch - '0';
        }
        if (ch >= 'a' && ch <= 'f') {
            return ch - 'a' + 10;
        }
        if (ch >= 'A' && ch <= 'F') {
            return ch - 'A' + 10;
        }
        return 16;
    }
}
