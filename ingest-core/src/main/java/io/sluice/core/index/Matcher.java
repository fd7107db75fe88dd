package io.sluice.core.index;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A label matcher of a PromQL selector: {@code name="v"}, {@code name!="v"}, {@code name=~"re"},
 * {@code name!~"re"}. Immutable and thread-safe; build once per query.
 *
 * <p>Regexes follow Prometheus ({@code model/labels/regexp.go}): RE2 syntax, compiled once with
 * RE2J (linear time, so no input can make matching blow up), fully anchored and with {@code .}
 * matching newlines: {@code ^(?s:re)$}. The regex must also compile on its own, so that
 * {@code a)|(b} is not smuggled through the wrapping group. A value is matched as a whole:
 * {@code {a=~"b"}} does not match {@code "abc"}.
 *
 * <p>A label a series lacks has the empty value, so a matcher that matches {@code ""} also
 * matches series without the label ({@link Selector} applies that rule).
 */
public final class Matcher {
    /** The four matcher operators. */
    public enum Type {
        EQ("="), NEQ("!="), RE("=~"), NRE("!~");

        private final String operator;

        Type(String operator) {
            this.operator = operator;
        }

        public String operator() {
            return operator;
        }

        boolean isNegative() {
            return this == NEQ || this == NRE;
        }
    }

    /** What the positive form ({@code =} or {@code =~}) accepts, for shortcuts in selection. */
    enum Shape {
        /** Exactly the values in {@link #literals()}: {@code =} or a literal alternation {@code a|b|c}. */
        LITERALS,
        /** Every value: {@code .*}. */
        ANY,
        /** Every non-empty value: {@code .+}. */
        NON_EMPTY,
        /**
         * A literal with {@code .*} before and/or after it ({@code lit.*}, {@code .*lit},
         * {@code .*lit.*}): a prefix, suffix or substring test, not a regex run (Prometheus'
         * {@code FastRegexMatcher} does the same).
         */
        AFFIX,
        /** Anything else: evaluate the regex per value. */
        REGEX;

        /** Whether selection judges each value of the label (a regex or affix test per value). */
        boolean scansValues() {
            return this == REGEX || this == AFFIX;
        }
    }

    private static final String REGEX_META = "\\.+*?()|[]{}^$";

    private final Type type;
    private final String name;
    private final String value;
    private final byte[] nameBytes;
    private final Pattern pattern; // null for EQ and NEQ
    private final Shape shape;
    private final List<String> literals; // for Shape.LITERALS, else empty
    private final boolean matchesEmpty;
    // Shape.AFFIX: the literal and where it may float.
    private final String affix;
    private final boolean anyBefore;
    private final boolean anyAfter;

    private Matcher(Type type, String name, String value) {
        this.type = Objects.requireNonNull(type, "type");
        this.name = Objects.requireNonNull(name, "name");
        this.value = Objects.requireNonNull(value, "value");
        this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (type == Type.EQ || type == Type.NEQ) {
            pattern = null;
            shape = Shape.LITERALS;
            literals = List.of(value);
            affix = null;
            anyBefore = false;
            anyAfter = false;
        } else {
            pattern = compile(name, value);
            List<String> set = literalAlternation(value);
            boolean before = value.startsWith(".*");
            String rest = before ? value.substring(2) : value;
            boolean after = endsWithAnyStar(rest);
            List<String> middle = before || after ? literalAlternation(after ? rest.substring(0, rest.length() - 2) : rest) : null;
            boolean isAffix = set == null && middle != null && middle.size() == 1;
            shape = value.equals(".*") ? Shape.ANY : value.equals(".+") ? Shape.NON_EMPTY
                    : set != null ? Shape.LITERALS : isAffix ? Shape.AFFIX : Shape.REGEX;
            literals = set != null ? set : List.of();
            affix = isAffix ? middle.get(0) : null;
            anyBefore = isAffix && before;
            anyAfter = isAffix && after;
        }
        this.matchesEmpty = matches("");
    }

    /**
     * A matcher; a regex that RE2 rejects throws {@link IllegalArgumentException} naming the label,
     * the regex and the position RE2 reports (bad input from a query, for the caller to return as 400).
     */
    public static Matcher of(Type type, String name, String value) {
        return new Matcher(type, name, value);
    }

    public static Matcher eq(String name, String value) {
        return of(Type.EQ, name, value);
    }

    public static Matcher neq(String name, String value) {
        return of(Type.NEQ, name, value);
    }

    public static Matcher re(String name, String regex) {
        return of(Type.RE, name, regex);
    }

    public static Matcher nre(String name, String regex) {
        return of(Type.NRE, name, regex);
    }

    public Type type() {
        return type;
    }

    public String name() {
        return name;
    }

    public String value() {
        return value;
    }

    /** Whether a label with value {@code v} ({@code ""} for an absent label) passes. */
    public boolean matches(String v) {
        return type.isNegative() != positiveMatches(v);
    }

    /** Whether the matcher also selects series that lack the label. */
    public boolean matchesEmpty() {
        return matchesEmpty;
    }

    /** Whether the positive form ({@code =} for {@code !=}, {@code =~} for {@code !~}) accepts {@code v}. */
    boolean positiveMatches(String v) {
        return switch (shape) {
            case LITERALS -> literals.contains(v);
            case ANY -> true;
            case NON_EMPTY -> !v.isEmpty();
            case AFFIX -> anyBefore ? (anyAfter ? v.contains(affix) : v.endsWith(affix))
                    : v.startsWith(affix); // anyAfter
            case REGEX -> pattern.matches(v);
        };
    }

    /** The positive form's regex run on {@code v}, shortcuts aside (for tests of the shortcuts). */
    boolean regexMatches(String v) {
        return pattern == null ? value.equals(v) : pattern.matches(v);
    }

    /** Whether {@code s} ends with an unescaped {@code .*} (an even run of backslashes before the dot). */
    private static boolean endsWithAnyStar(String s) {
        if (!s.endsWith(".*")) {
            return false;
        }
        int slashes = 0;
        for (int i = s.length() - 3; i >= 0 && s.charAt(i) == '\\'; i--) {
            slashes++;
        }
        return slashes % 2 == 0;
    }

    boolean isNegative() {
        return type.isNegative();
    }

    Shape shape() {
        return shape;
    }

    List<String> literals() {
        return literals;
    }

    byte[] nameBytes() {
        return nameBytes;
    }

    /** PromQL form: {@code job=~"node|api"}. */
    @Override
    public String toString() {
        return name + type.operator + '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static Pattern compile(String name, String regex) {
        try {
            Pattern.compile(regex);
            return Pattern.compile("^(?s:" + regex + ")$");
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regex for label " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * The values of a regex that is only literal text and {@code |} ({@code a|b\.c|}), or null.
     * Prometheus' {@code findSetMatches} shortcut: such a regex is a set lookup, not a scan.
     */
    static List<String> literalAlternation(String regex) {
        List<String> set = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 == regex.length() || REGEX_META.indexOf(regex.charAt(i + 1)) < 0) {
                    return null; // \d, \pL, a trailing backslash: not a literal
                }
                current.append(regex.charAt(++i));
            } else if (c == '|') {
                set.add(current.toString());
                current.setLength(0);
            } else if (REGEX_META.indexOf(c) >= 0) {
                return null;
            } else {
                current.append(c);
            }
        }
        set.add(current.toString());
        return List.copyOf(set);
    }
}
