package io.sluice.server.query;

import io.sluice.core.index.Matcher;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses the part of PromQL Sluice answers: a vector selector {@code name{a="b",c=~"re",d!="",e!~"x"}}
 * (or {@code {__name__="x"}}, or Prometheus 3's quoted names {@code {"my.metric", "a.b"="c"}}),
 * optionally followed by a range {@code [5m]}. Strings follow PromQL: double or single quotes with
 * Go escapes ({@code \n}, {@code \t}, {@code \\}, {@code \"}, {@code \x41}, {@code \101},
 * {@code \u00e9}, {@code \U0001F600}, ...) or backticks with none. Comments ({@code # ...}) and
 * whitespace are skipped.
 *
 * <p>Everything else PromQL has — functions, operators, aggregations, {@code offset}, {@code @},
 * subqueries, number and string literals — is rejected with {@link ApiError} (400 {@code bad_data})
 * saying it is not supported by Sluice, never answered wrongly. Not thread-safe; one per query.
 */
final class SelectorParser {
    private static final Set<String> KEYWORDS = Set.of("sum", "avg", "count", "min", "max", "group", "stddev",
            "stdvar", "topk", "bottomk", "count_values", "quantile", "limitk", "limit_ratio", "by", "without", "on",
            "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "atan2", "offset");

    private final String query;
    private final String parameter;
    private int pos;

    private SelectorParser(String query, String parameter) {
        this.query = query;
        this.parameter = parameter;
    }

    /** Parses the {@code query} parameter as one selector, or throws a 400 saying what is wrong or unsupported. */
    static Selection parse(String query) throws ApiError {
        return parse(query, "query");
    }

    /** Parses {@code text}, the value of {@code parameter}; errors name that parameter. */
    static Selection parse(String text, String parameter) throws ApiError {
        return new SelectorParser(text, parameter).selection();
    }

    private Selection selection() throws ApiError {
        skipSpace();
        if (pos == query.length()) {
            throw ApiError.badData("invalid parameter \"" + parameter + "\": empty query");
        }
        List<Matcher> matchers = new ArrayList<>();
        String name = null;
        if (isNameStart(peek())) {
            int start = pos;
            name = identifier(true);
            checkNameIsNotKeyword(name, start);
            skipSpace();
            if (peek() == '(') {
                throw unsupported("function calls", start);
            }
        } else if (peek() != '{') {
            throw unsupported(describeAt(pos), pos);
        }
        if (peek() == '{') {
            name = matcherList(name, matchers);
        }
        if (name != null) {
            matchers.addFirst(Matcher.eq("__name__", name));
        }
        requireNonEmptyMatcher(matchers);
        skipSpace();
        long rangeMs = -1;
        if (peek() == '[') {
            rangeMs = range();
        }
        skipSpace();
        if (pos < query.length()) {
            throw unsupported(describeAt(pos), pos);
        }
        return new Selection(matchers, rangeMs);
    }

    private void checkNameIsNotKeyword(String name, int start) throws ApiError {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.equals("inf") || lower.equals("nan")) {
            throw unsupported("number literals", start);
        }
        if (KEYWORDS.contains(lower)) { // PromQL's lexer matches keywords in any case
            throw unsupported("'" + name + "' (aggregations, operators and modifiers)", start);
        }
    }

    /** {@code {matcher, ...}}; returns the metric name (given before or as a lone quoted string inside). */
    private String matcherList(String name, List<Matcher> matchers) throws ApiError {
        pos++; // '{'
        while (true) {
            skipSpace();
            if (peek() == '}') {
                pos++;
                return name;
            }
            int start = pos;
            String label = peek() == '"' || peek() == '\'' || peek() == '`' ? string() : identifier(false);
            skipSpace();
            if (peek() == ',' || peek() == '}') { // a quoted metric name inside the braces
                if (label.isEmpty() || name != null || !isQuote(query.charAt(start))) {
                    throw syntax(name != null ? "metric name must not be set twice" : "unexpected " + describeAt(pos), start);
                }
                name = label;
            } else {
                matchers.add(matcher(label, start));
                if (label.equals("__name__") && name != null) {
                    throw syntax("metric name must not be set twice", start);
                }
            }
            skipSpace();
            if (peek() == ',') {
                pos++;
            } else if (peek() != '}') {
                throw syntax("unexpected " + describeAt(pos) + " in label matching, expected \",\" or \"}\"", pos);
            }
        }
    }

    private Matcher matcher(String label, int start) throws ApiError {
        Matcher.Type type = operator();
        skipSpace();
        if (!isQuote(peek())) {
            throw syntax("unexpected " + describeAt(pos) + " in label matching, expected string", pos);
        }
        String value = string();
        if (type == Matcher.Type.RE || type == Matcher.Type.NRE) {
            RegexLimits.check("invalid parameter \"" + parameter + "\"", label, value);
        }
        try {
            return Matcher.of(type, label, value);
        } catch (IllegalArgumentException e) {
            throw syntax(e.getMessage(), start);
        }
    }

    private Matcher.Type operator() throws ApiError {
        if (query.startsWith("=~", pos)) {
            pos += 2;
            return Matcher.Type.RE;
        } else if (query.startsWith("!~", pos)) {
            pos += 2;
            return Matcher.Type.NRE;
        } else if (query.startsWith("!=", pos)) {
            pos += 2;
            return Matcher.Type.NEQ;
        } else if (query.startsWith("=", pos)) {
            pos++;
            return Matcher.Type.EQ;
        }
        throw syntax("unexpected " + describeAt(pos) + " in label matching, expected label matching operator", pos);
    }

    private void requireNonEmptyMatcher(List<Matcher> matchers) throws ApiError {
        for (Matcher m : matchers) {
            if (!m.matchesEmpty()) {
                return;
            }
        }
        throw syntax("vector selector must contain at least one non-empty matcher", 0);
    }

    /** {@code [duration]}; a subquery ({@code [5m:1m]}) is not supported. */
    private long range() throws ApiError {
        int open = pos++;
        int close = query.indexOf(']', pos);
        if (close < 0) {
            throw syntax("unclosed left bracket", open);
        }
        String text = query.substring(pos, close).strip();
        if (text.contains(":")) {
            throw unsupported("subqueries", open);
        }
        long ms = PromTime.parseDurationMs(text);
        if (ms < 0) {
            throw syntax("bad duration \"" + text + "\" in range selector (like 5m, 1h30m)", pos);
        }
        pos = close + 1;
        return ms;
    }

    // ---------------------------------------------------------------- tokens

    private String identifier(boolean metricName) throws ApiError {
        int start = pos;
        if (!isNameStart(peek()) || (!metricName && peek() == ':')) {
            throw syntax("unexpected " + describeAt(pos) + ", expected a label name", pos);
        }
        while (pos < query.length() && (isNameStart(query.charAt(pos)) || isDigit(query.charAt(pos)))
                && (metricName || query.charAt(pos) != ':')) {
            pos++;
        }
        return query.substring(start, pos);
    }

    /**
     * A quoted string at {@code pos}, unescaped. As in Go, {@code \x} and octal escapes are bytes, the
     * rest code points; the bytes must form valid UTF-8.
     */
    private String string() throws ApiError {
        int start = pos;
        char quote = query.charAt(pos++);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            if (pos >= query.length() || (quote != '`' && query.charAt(pos) == '\n')) {
                throw syntax("unterminated quoted string", start);
            }
            int c = query.codePointAt(pos);
            pos += Character.charCount(c);
            if (c == quote) {
                return utf8(out.toByteArray(), start);
            }
            if (c == '\\' && quote != '`') {
                escape(quote, out);
            } else {
                appendCodePoint(out, c);
            }
        }
    }

    private String utf8(byte[] bytes, int start) throws ApiError {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw syntax("invalid UTF-8 in quoted string", start);
        }
    }

    private static void appendCodePoint(ByteArrayOutputStream out, int c) {
        byte[] utf8 = Character.toString(c).getBytes(StandardCharsets.UTF_8);
        out.write(utf8, 0, utf8.length);
    }

    /** Go's strconv escapes (what PromQL's lexer accepts and strconv.Unquote decodes). */
    private void escape(char quote, ByteArrayOutputStream out) throws ApiError {
        int at = pos - 1;
        if (pos >= query.length()) {
            throw syntax("unterminated quoted string", at);
        }
        char c = query.charAt(pos++);
        switch (c) {
            case 'a' -> out.write(0x07);
            case 'b' -> out.write('\b');
            case 'f' -> out.write('\f');
            case 'n' -> out.write('\n');
            case 'r' -> out.write('\r');
            case 't' -> out.write('\t');
            case 'v' -> out.write(0x0B);
            case '\\' -> out.write('\\');
            case 'x' -> out.write(hex(2, at));
            case 'u' -> appendCodePoint(out, codePoint(hex(4, at), at));
            case 'U' -> appendCodePoint(out, codePoint(hex(8, at), at));
            case '0', '1', '2', '3', '4', '5', '6', '7' -> out.write(octal(c, at));
            default -> {
                if (c != quote) {
                    throw syntax("unknown escape sequence \\" + c, at);
                }
                out.write(c);
            }
        }
    }

    private int hex(int digits, int at) throws ApiError {
        if (pos + digits > query.length()) {
            throw syntax("bad escape sequence: too few hex digits", at);
        }
        int v = 0;
        for (int i = 0; i < digits; i++) {
            int d = Character.digit(query.charAt(pos++), 16);
            if (d < 0) {
                throw syntax("bad escape sequence: not a hex digit", at);
            }
            v = v * 16 + d;
        }
        return v;
    }

    private int codePoint(int v, int at) throws ApiError {
        if (v > Character.MAX_CODE_POINT || (v >= 0xD800 && v <= 0xDFFF)) {
            throw syntax("bad escape sequence: invalid Unicode code point", at);
        }
        return v;
    }

    private int octal(char first, int at) throws ApiError {
        int v = first - '0';
        for (int i = 0; i < 2; i++) {
            char c = pos < query.length() ? query.charAt(pos) : ' ';
            if (c < '0' || c > '7') {
                throw syntax("bad escape sequence: octal escapes take three digits", at);
            }
            v = v * 8 + (c - '0');
            pos++;
        }
        if (v > 255) {
            throw syntax("bad escape sequence: octal value above 255", at);
        }
        return v;
    }

    private void skipSpace() {
        while (pos < query.length()) {
            char c = query.charAt(pos);
            if (c == '#') {
                while (pos < query.length() && query.charAt(pos) != '\n') {
                    pos++;
                }
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private char peek() {
        return pos < query.length() ? query.charAt(pos) : '\0';
    }

    private static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isQuote(char c) {
        return c == '"' || c == '\'' || c == '`';
    }

    /** What the query has at {@code at}, named for an error message. */
    private String describeAt(int at) {
        if (at >= query.length()) {
            return "end of input";
        }
        char c = query.charAt(at);
        if (isDigit(c) || c == '.') {
            return "number literals";
        }
        if (isQuote(c)) {
            return "string literals";
        }
        if (c == '(') {
            return "parentheses";
        }
        if (c == '@') {
            return "the @ modifier";
        }
        if (query.startsWith("offset", at)) {
            return "the offset modifier";
        }
        if (c == '[') {
            return "subqueries";
        }
        if ("+-*/%^=!<>".indexOf(c) >= 0 || isNameStart(c)) {
            return "operators and expressions";
        }
        return "'" + c + "'";
    }

    private ApiError unsupported(String what, int at) {
        return ApiError.badData("invalid parameter \"" + parameter + "\": " + what + " not supported by Sluice: only vector "
                + "selectors (name{label=\"value\"}) and range selectors (name{...}[5m]) are (at char " + (at + 1)
                + " of \"" + query + "\")");
    }

    private ApiError syntax(String message, int at) {
        return ApiError.badData("invalid parameter \"" + parameter + "\": parse error: " + message + " (at char " + (at + 1)
                + " of \"" + query + "\")");
    }
}
