package io.sluice.promql.script;

import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.SampleIterator;
import java.util.Arrays;

/**
 * One series line of a test script, {@code metric{a="b"} 0+10x3 _ stale 5}: its labels and its expanded
 * sequence of values, one per step. {@code kinds[i]} says whether step {@code i} is a float
 * ({@link #FLOAT}, value in {@code values[i]}), has no sample ({@link #OMITTED}, from {@code _}) or is a
 * native histogram ({@link #HISTOGRAM}, written {@code {{...}}}; not supported by this engine, kept only
 * so that the steps line up).
 *
 * <p>The value notation is promtool's: {@code a} one value; {@code axn} n+1 copies; {@code a+bxn} and
 * {@code a-bxn} n+1 values starting at a, stepping by b; {@code _} no sample; {@code _xn} n steps
 * without samples; {@code stale} a staleness marker; {@code Inf}, {@code -Inf}, {@code NaN}. Numbers are
 * decimal or float ({@code 1e3}, {@code .5}, {@code 1_000}, a leading-zero integer is octal as in Go);
 * hexadecimal is not accepted here (the {@code x} is the repeat sign).
 */
public record SeriesDescription(Labels labels, double[] values, byte[] kinds) {
    public static final byte FLOAT = 0;
    public static final byte OMITTED = 1;
    public static final byte HISTOGRAM = 2;

    public int size() {
        return values.length;
    }

    public boolean hasHistogram() {
        for (byte k : kinds) {
            if (k == HISTOGRAM) {
                return true;
            }
        }
        return false;
    }

    /** Parses a whole series line; throws {@link ScriptException} on bad syntax. */
    public static SeriesDescription parse(String line) {
        Cursor c = new Cursor(line.trim());
        Labels labels = parseMetric(c);
        Builder b = new Builder();
        while (true) {
            int before = c.pos;
            c.skipSpaces();
            if (c.eof()) {
                break;
            }
            if (c.pos == before) {
                throw new ScriptException("unexpected " + describe(c) + " in series values: " + line);
            }
            parseItem(c, b, line);
        }
        return new SeriesDescription(labels, Arrays.copyOf(b.values, b.n), Arrays.copyOf(b.kinds, b.n));
    }

    /** Parses just {@code metric{labels}} (a whole string, no values). */
    public static Labels parseLabels(String text) {
        Cursor c = new Cursor(text.trim());
        Labels l = parseMetric(c);
        c.skipSpaces();
        if (!c.eof()) {
            throw new ScriptException("unexpected " + describe(c) + " after the series: " + text);
        }
        return l;
    }

    private static String describe(Cursor c) {
        return c.eof() ? "end of input" : "character '" + c.peek() + "' at column " + (c.pos + 1);
    }

    private static Labels parseMetric(Cursor c) {
        Labels.Builder b = new Labels.Builder();
        boolean any = false;
        if (!c.eof() && isIdentStart(c.peek())) {
            String name = c.identifier();
            b.set(Labels.METRIC_NAME, name);
            any = true;
        }
        if (!c.eof() && c.peek() == '{' && !(c.pos + 1 < c.s.length() && c.s.charAt(c.pos + 1) == '{')) {
            c.pos++;
            parseLabelSet(c, b);
            any = true;
        }
        if (!any) {
            throw new ScriptException("expected a metric name or a label set at column " + (c.pos + 1) + ": " + c.s);
        }
        return b.build();
    }

    private static void parseLabelSet(Cursor c, Labels.Builder b) {
        while (true) {
            c.skipSpaces();
            if (c.eof()) {
                throw new ScriptException("unterminated label set: " + c.s);
            }
            char ch = c.peek();
            if (ch == '}') {
                c.pos++;
                return;
            }
            String name;
            boolean quoted;
            if (ch == '"' || ch == '\'' || ch == '`') {
                name = c.quoted();
                quoted = true;
            } else if (isIdentStart(ch)) {
                name = c.identifier();
                quoted = false;
            } else {
                throw new ScriptException("unexpected " + describe(c) + " in label set: " + c.s);
            }
            c.skipSpaces();
            if (!c.eof() && c.peek() == '=') {
                c.pos++;
                c.skipSpaces();
                if (c.eof() || "\"'`".indexOf(c.peek()) < 0) {
                    throw new ScriptException("expected a quoted label value at column " + (c.pos + 1) + ": " + c.s);
                }
                b.set(name, c.quoted());
            } else if (quoted) {
                b.set(Labels.METRIC_NAME, name);
            } else {
                throw new ScriptException("expected '=' after label name " + name + ": " + c.s);
            }
            c.skipSpaces();
            if (!c.eof() && c.peek() == ',') {
                c.pos++;
            } else if (c.eof() || c.peek() != '}') {
                throw new ScriptException("expected ',' or '}' at column " + (c.pos + 1) + ": " + c.s);
            }
        }
    }

    private static void parseItem(Cursor c, Builder b, String line) {
        char ch = c.peek();
        if (ch == '{' && c.startsWith("{{")) {
            parseHistogramItem(c, b, line);
            return;
        }
        if (ch == '_' && (c.pos + 1 == c.s.length() || c.s.charAt(c.pos + 1) == 'x' || isSpace(c.s.charAt(c.pos + 1)))) {
            c.pos++;
            if (!c.eof() && c.peek() == 'x') {
                c.pos++;
                long n = c.uint(line);
                for (long i = 0; i < n; i++) {
                    b.add(0, OMITTED);
                }
            } else {
                b.add(0, OMITTED);
            }
            expectItemEnd(c, line);
            return;
        }
        double first = seriesValue(c, line);
        if (c.eof() || isSpace(c.peek())) {
            b.add(first, FLOAT);
            return;
        }
        if (c.peek() == 'x') {
            c.pos++;
            long n = c.uint(line);
            for (long i = 0; i <= n; i++) {
                b.add(first, FLOAT);
            }
            expectItemEnd(c, line);
            return;
        }
        if (c.peek() == '+' || c.peek() == '-') {
            boolean neg = c.peek() == '-';
            c.pos++;
            double step = number(c, line);
            if (neg) {
                step = -step;
            }
            if (c.eof() || c.peek() != 'x') {
                throw new ScriptException("expected 'x' and a repetition count after " + c.s.substring(0, c.pos) + ": " + line);
            }
            c.pos++;
            long n = c.uint(line);
            double v = first;
            for (long i = 0; i <= n; i++) {
                b.add(v, FLOAT);
                v += step;
            }
            expectItemEnd(c, line);
            return;
        }
        throw new ScriptException("unexpected " + describe(c) + " in series values: " + line);
    }

    private static void expectItemEnd(Cursor c, String line) {
        if (!c.eof() && !isSpace(c.peek())) {
            throw new ScriptException("unexpected " + describe(c) + " in series values: " + line);
        }
    }

    /** {@code {{...}}}, {@code {{...}}xn}, {@code {{...}}+{{...}}xn}, {@code {{...}}-{{...}}xn}: steps only. */
    private static void parseHistogramItem(Cursor c, Builder b, String line) {
        skipHistogram(c, line);
        long count = 1;
        if (!c.eof() && (c.peek() == '+' || c.peek() == '-')) {
            c.pos++;
            if (!c.startsWith("{{")) {
                throw new ScriptException("expected a histogram after " + c.s.substring(0, c.pos) + ": " + line);
            }
            skipHistogram(c, line);
            if (c.eof() || c.peek() != 'x') {
                throw new ScriptException("expected 'x' and a repetition count after a histogram: " + line);
            }
        }
        if (!c.eof() && c.peek() == 'x') {
            c.pos++;
            count = c.uint(line) + 1;
        }
        expectItemEnd(c, line);
        for (long i = 0; i < count; i++) {
            b.add(Double.NaN, HISTOGRAM);
        }
    }

    private static void skipHistogram(Cursor c, String line) {
        int end = c.s.indexOf("}}", c.pos + 2);
        if (end < 0) {
            throw new ScriptException("unterminated histogram {{...}}: " + line);
        }
        c.pos = end + 2;
    }

    /** {@code stale}, or a number with an optional sign. */
    private static double seriesValue(Cursor c, String line) {
        char ch = c.peek();
        if (ch == '+' || ch == '-') {
            c.pos++;
            double v = number(c, line);
            return ch == '-' ? -v : v;
        }
        if (isIdentStart(ch)) {
            int save = c.pos;
            String word = c.identifier();
            if (word.equals("stale")) {
                return Double.longBitsToDouble(SampleIterator.STALE_NAN_BITS);
            }
            c.pos = save;
        }
        return number(c, line);
    }

    /** An unsigned number: digits/float syntax, or the keywords {@code Inf} and {@code NaN} (any case). */
    private static double number(Cursor c, String line) {
        if (c.eof()) {
            throw new ScriptException("expected a number at the end of: " + line);
        }
        char ch = c.peek();
        if (isIdentStart(ch)) {
            String word = c.identifier();
            String lower = word.toLowerCase(java.util.Locale.ROOT);
            if (lower.equals("inf")) {
                return Double.POSITIVE_INFINITY;
            }
            if (lower.equals("nan")) {
                return Double.NaN;
            }
            throw new ScriptException("unexpected identifier \"" + word + "\" in series values, expected number or \"stale\": " + line);
        }
        int start = c.pos;
        if (!scanNumber(c)) {
            throw new ScriptException("bad number syntax: \"" + c.s.substring(start, c.pos) + "\" in: " + line);
        }
        return parseNumberToken(c.s.substring(start, c.pos));
    }

    /** The lexer's number shape: {@code [.][d][d._eE]*} with its anti-patterns; stops before an {@code x}. */
    private static boolean scanNumber(Cursor c) {
        int start = c.pos;
        String s = c.s;
        if (c.pos < s.length() && s.charAt(c.pos) == '.') {
            c.pos++;
        }
        if (c.pos < s.length() && isDigit(s.charAt(c.pos))) {
            c.pos++;
        }
        boolean dot = s.charAt(start) == '.';
        boolean exp = false;
        while (c.pos < s.length()) {
            char ch = s.charAt(c.pos);
            if (isDigit(ch)) {
                c.pos++;
            } else if (ch == '.') {
                if (dot) {
                    return false;
                }
                dot = true;
                c.pos++;
                if (c.pos < s.length() && (s.charAt(c.pos) == '_' || s.charAt(c.pos) == '.')) {
                    return false;
                }
            } else if (ch == 'e' || ch == 'E') {
                if (exp) {
                    return false;
                }
                exp = true;
                c.pos++;
                if (c.pos < s.length() && (s.charAt(c.pos) == '+' || s.charAt(c.pos) == '-')) {
                    c.pos++;
                }
                if (c.pos >= s.length() || "._eE".indexOf(s.charAt(c.pos)) >= 0) {
                    return false;
                }
            } else if (ch == '_') {
                c.pos++;
                if (c.pos >= s.length() || "._eE".indexOf(s.charAt(c.pos)) >= 0) {
                    return false;
                }
            } else {
                break;
            }
        }
        if (c.pos == start) {
            return false;
        }
        return c.pos == s.length() || s.charAt(c.pos) == 'x' || !isAlphaNumeric(s.charAt(c.pos));
    }

    /** A number token as Go's {@code strconv.ParseInt(s, 0, 64)} then {@code ParseFloat(s, 64)} read it. */
    static double parseNumberToken(String token) {
        String t = token.replace("_", "");
        if (!t.isEmpty() && t.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            try {
                if (t.length() > 1 && t.charAt(0) == '0' && t.chars().allMatch(ch -> ch >= '0' && ch <= '7')) {
                    return (double) Long.parseLong(t.substring(1), 8);
                }
                if (t.length() == 1 || t.charAt(0) != '0') {
                    return (double) Long.parseLong(t);
                }
            } catch (NumberFormatException e) {
                // too large for a long: read as a float below
            }
        }
        try {
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new ScriptException("error parsing number: \"" + token + "\"");
        }
    }

    static boolean isIdentStart(char c) {
        return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    static boolean isAlphaNumeric(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c);
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static final class Builder {
        double[] values = new double[16];
        byte[] kinds = new byte[16];
        int n;

        void add(double v, byte kind) {
            if (n == values.length) {
                if (n > 50_000_000) {
                    throw new ScriptException("series too long: more than 50,000,000 steps");
                }
                values = Arrays.copyOf(values, n * 2);
                kinds = Arrays.copyOf(kinds, n * 2);
            }
            values[n] = v;
            kinds[n] = kind;
            n++;
        }
    }

    /** A position in a line being parsed. */
    static final class Cursor {
        final String s;
        int pos;

        Cursor(String s) {
            this.s = s;
        }

        boolean eof() {
            return pos >= s.length();
        }

        char peek() {
            return s.charAt(pos);
        }

        boolean startsWith(String p) {
            return s.startsWith(p, pos);
        }

        void skipSpaces() {
            while (pos < s.length() && isSpace(s.charAt(pos))) {
                pos++;
            }
        }

        String identifier() {
            int start = pos;
            while (pos < s.length() && (isAlphaNumeric(s.charAt(pos)) || s.charAt(pos) == ':')) {
                pos++;
            }
            return s.substring(start, pos);
        }

        long uint(String line) {
            int start = pos;
            while (pos < s.length() && isDigit(s.charAt(pos))) {
                pos++;
            }
            if (start == pos) {
                throw new ScriptException("expected a repetition count at column " + (start + 1) + ": " + line);
            }
            try {
                return Long.parseLong(s.substring(start, pos));
            } catch (NumberFormatException e) {
                throw new ScriptException("invalid repetition in series values: " + s.substring(start, pos));
            }
        }

        /** A PromQL string literal: double- or single-quoted with Go escapes, or back-quoted raw. */
        String quoted() {
            char q = s.charAt(pos++);
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw new ScriptException("unterminated quoted string: " + s);
                }
                char ch = s.charAt(pos++);
                if (ch == q) {
                    return sb.toString();
                }
                if (ch == '\\' && q != '`') {
                    if (pos >= s.length()) {
                        throw new ScriptException("unterminated escape: " + s);
                    }
                    char e = s.charAt(pos++);
                    switch (e) {
                        case 'a' -> sb.append('\u0007');
                        case 'b' -> sb.append('\b');
                        case 'f' -> sb.append('\f');
                        case 'n' -> sb.append('\n');
                        case 'r' -> sb.append('\r');
                        case 't' -> sb.append('\t');
                        case 'v' -> sb.append('\u000b');
                        case '\\', '"', '\'' -> sb.append(e);
                        case 'x' -> sb.appendCodePoint(hex(2));
                        case 'u' -> sb.appendCodePoint(hex(4));
                        case 'U' -> sb.appendCodePoint(hex(8));
                        default -> {
                            if (e >= '0' && e <= '7' && pos + 2 <= s.length()) {
                                sb.append((char) Integer.parseInt(s.substring(pos - 1, pos + 2), 8));
                                pos += 2;
                            } else {
                                throw new ScriptException("unknown escape sequence \\" + e + ": " + s);
                            }
                        }
                    }
                } else {
                    sb.append(ch);
                }
            }
        }

        private int hex(int digits) {
            if (pos + digits > s.length()) {
                throw new ScriptException("bad escape in: " + s);
            }
            try {
                int v = Integer.parseUnsignedInt(s.substring(pos, pos + digits), 16);
                pos += digits;
                return v;
            } catch (NumberFormatException e) {
                throw new ScriptException("bad escape in: " + s);
            }
        }
    }
}
