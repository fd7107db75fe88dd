package io.sluice.promql.parse;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Expr.AtKind;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import java.util.ArrayList;
import java.util.List;

/** The parser's vector selectors: the metric name and the label matchers in braces. */
final class SelectorParser {
    private final ParseState st;

    SelectorParser(ParseState st) {
        this.st = st;
    }

    /** A vector selector after its metric name (null when it starts with a brace); the lookahead is after the name. */
    Expr.VectorSelector parseSelector(Token name) {
        int start = name != null ? name.pos() : st.peek().pos();
        int end = name != null ? name.end() : st.peek().pos();
        List<LabelMatcher> matchers = new ArrayList<>();
        if (st.peek().type() == TokenType.LEFT_BRACE) {
            end = parseMatchers(matchers);
        }
        String metric = null;
        if (name != null) {
            metric = name.text();
            matchers.add(LabelMatcher.equal(Labels.METRIC_NAME, metric));
        }
        return new Expr.VectorSelector(metric, List.copyOf(matchers), 0, AtKind.NONE, 0, ParseState.span(start, end));
    }

    /** {@code { matcher, ... }}; returns the end of the closing brace. */
    private int parseMatchers(List<LabelMatcher> out) {
        st.advance();
        if (st.peek().type() == TokenType.RIGHT_BRACE) {
            return st.advance().end();
        }
        while (true) {
            if (st.peek().type() == TokenType.IDENTIFIER) {
                Token label = st.advance();
                if (!isMatchOp(st.peek().type())) {
                    throw st.unexpected("label matching", "label matching operator");
                }
                out.add(matcher(label, label.text()));
            } else if (st.peek().type() == TokenType.STRING) {
                Token label = st.advance();
                if (isMatchOp(st.peek().type())) {
                    out.add(matcher(label, label.value()));
                } else {
                    out.add(LabelMatcher.equal(Labels.METRIC_NAME, label.value()));
                }
            } else {
                throw st.unexpected("label matching", "identifier or \"}\"");
            }
            if (st.peek().type() == TokenType.COMMA) {
                st.advance();
                if (st.peek().type() == TokenType.RIGHT_BRACE) {
                    return st.advance().end();
                }
            } else if (st.peek().type() == TokenType.RIGHT_BRACE) {
                return st.advance().end();
            } else {
                throw st.unexpected("label matching", "\",\" or \"}\"");
            }
        }
    }

    private static boolean isMatchOp(TokenType t) {
        return t == TokenType.EQL || t == TokenType.NEQ || t == TokenType.EQL_REGEX || t == TokenType.NEQ_REGEX;
    }

    private LabelMatcher matcher(Token label, String name) {
        Token op = st.advance();
        if (st.peek().type() != TokenType.STRING) {
            throw st.unexpected("label matching", "string");
        }
        Token value = st.advance();
        LabelMatcher.Type type = switch (op.type()) {
            case EQL -> LabelMatcher.Type.EQUAL;
            case NEQ -> LabelMatcher.Type.NOT_EQUAL;
            case EQL_REGEX -> LabelMatcher.Type.REGEX;
            default -> LabelMatcher.Type.NOT_REGEX;
        };
        try {
            return LabelMatcher.of(type, name, value.value());
        } catch (IllegalArgumentException e) {
            throw st.errorAt(label.pos(), value.end(), regexError(value.value(), e));
        }
    }

    /** RE2's message for the pattern as written (not as anchored). */
    private static String regexError(String pattern, IllegalArgumentException e) {
        if (e instanceof io.sluice.promql.labels.RegexLimits.TooComplexException) {
            return e.getMessage();
        }
        try {
            com.google.re2j.Pattern.compile(pattern);
        } catch (com.google.re2j.PatternSyntaxException pe) {
            if (pe.getMessage().contains("stack underflow")) {
                return "error parsing regexp: unexpected ): `" + pattern + "`"; // RE2J's text for an unopened ')'
            }
            return pe.getMessage();
        }
        return e.getMessage();
    }
}
