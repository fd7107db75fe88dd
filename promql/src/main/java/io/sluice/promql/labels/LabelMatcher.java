package io.sluice.promql.labels;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * One label matcher of a selector: {@code name op "value"}. Regular expressions have RE2 semantics and
 * are fully anchored, as in Prometheus ({@code =~"a|b"} matches {@code a} or {@code b}, never {@code ab}).
 * A missing label matches as the empty string. Immutable and thread-safe.
 */
public final class LabelMatcher {
    public enum Type {
        EQUAL("="), NOT_EQUAL("!="), REGEX("=~"), NOT_REGEX("!~");

        private final String symbol;

        Type(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }
    }

    private final Type type;
    private final String name;
    private final String value;
    private final Pattern pattern;

    private LabelMatcher(Type type, String name, String value, Pattern pattern) {
        this.type = type;
        this.name = name;
        this.value = value;
        this.pattern = pattern;
    }

    /**
     * A matcher; a regular expression that does not compile throws {@link IllegalArgumentException}
     * with RE2's message (the parser turns it into a parse error at the matcher's position).
     */
    public static LabelMatcher of(Type type, String name, String value) {
        Pattern p = null;
        if (type == Type.REGEX || type == Type.NOT_REGEX) {
            RegexLimits.check(name, value);
            try {
                p = Pattern.compile("^(?:" + value + ")$", Pattern.DOTALL);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        return new LabelMatcher(type, name, value, p);
    }

    public static LabelMatcher equal(String name, String value) {
        return of(Type.EQUAL, name, value);
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

    /** Whether a label value (empty when the label is missing) matches. */
    public boolean matches(String labelValue) {
        return switch (type) {
            case EQUAL -> value.equals(labelValue);
            case NOT_EQUAL -> !value.equals(labelValue);
            case REGEX -> pattern.matcher(labelValue).matches();
            case NOT_REGEX -> !pattern.matcher(labelValue).matches();
        };
    }

    /** Whether this matcher matches the empty string (such a matcher alone selects nothing in Prometheus). */
    public boolean matchesEmpty() {
        return matches("");
    }

    @Override
    public String toString() {
        return (Labels.isIdentifier(name) ? name : Labels.quote(name)) + type.symbol + Labels.quote(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LabelMatcher m && m.type == type && m.name.equals(name) && m.value.equals(value);
    }

    @Override
    public int hashCode() {
        return (type.hashCode() * 31 + name.hashCode()) * 31 + value.hashCode();
    }
}
