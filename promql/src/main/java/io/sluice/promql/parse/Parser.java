package io.sluice.promql.parse;

import io.sluice.promql.PromQLException;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Expr.Cardinality;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PromQL parser: Prometheus 3.x's grammar for float queries, its precedence and associativity
 * ({@code ^} right-associative; unary minus binds tighter than {@code *} but looser than {@code ^}, so
 * {@code -2^2} is -4), its type checks and its error texts with positions
 * ({@code 1:15: parse error: ...}). A recursive-descent parser with one token of lookahead; nesting is
 * bounded ({@link #MAX_DEPTH}) so hostile input fails with a {@link ParseException}, never a stack overflow.
 *
 * <p>Like Prometheus, syntax errors and the errors found while building the tree are reported first
 * (the first one wins); the type checks run over the finished tree afterwards, depth first.
 *
 * <p>This class holds the expressions and operators; {@link SelectorParser}, {@link ModifierParser} and
 * {@link CallParser} parse the selectors, the modifiers and the calls and aggregations, over the tokens,
 * bounds and error texts of a shared {@link ParseState}.
 */
public final class Parser {
    /** The deepest expression tree accepted (parentheses, operators, calls all count). */
    public static final int MAX_DEPTH = 500;

    private final ParseState st;
    private final SelectorParser selectors;
    private final ModifierParser modifiers;
    private final CallParser calls;
    /** Vector matching as written, for the type checks (the tree keeps it only between two vectors). */
    private final Map<Expr.Binary, TypeChecker.Matching> matchings = new IdentityHashMap<>();

    private Parser(String query) {
        this.st = new ParseState(query);
        this.selectors = new SelectorParser(st);
        this.modifiers = new ModifierParser(st);
        this.calls = new CallParser(st, this);
    }

    /** Parses and type-checks a PromQL expression. */
    public static Expr parse(String query) {
        Parser p = new Parser(query);
        return p.parseQuery();
    }

    /**
     * Parses a series selector as the HTTP API's {@code match[]} takes it ({@code up}, {@code {job="a"}},
     * {@code {"my.metric"}}); the matchers include the {@code __name__} matcher.
     */
    public static List<LabelMatcher> parseSeriesSelector(String selector) {
        ParseState st = new ParseState(selector);
        SelectorParser selectors = new SelectorParser(st);
        Token first = st.peek();
        Expr.VectorSelector vs;
        if (first.type() == TokenType.LEFT_BRACE) {
            vs = selectors.parseSelector(null);
        } else if (first.type().isMetricIdentifier()) {
            st.advance();
            vs = selectors.parseSelector(first);
        } else {
            throw st.unexpected("", "");
        }
        if (st.peek().type() != TokenType.EOF) {
            throw st.unexpected("", "");
        }
        return vs.matchers();
    }

    private static final java.util.regex.Pattern FLOAT_SECONDS =
            java.util.regex.Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)");

    /**
     * A duration as the HTTP API accepts it (Prometheus' {@code parseDuration}): float seconds
     * ({@code 30}, {@code 1.5}) or a PromQL duration ({@code 5m}, {@code 1h30m}); in milliseconds.
     *
     * @throws PromQLException (bad_data) with Prometheus' text when it is neither
     */
    public static long parseDuration(String s) {
        try {
            if (!s.isEmpty() && !s.strip().equals(s)) {
                throw new NumberFormatException();
            }
            double d = Double.parseDouble(s);
            if (!FLOAT_SECONDS.matcher(s).matches()) {
                throw new NumberFormatException();
            }
            double ns = d * 1e9;
            if (Double.isNaN(ns) || ns >= 9.223372036854775807e18 || ns <= -9.223372036854775808e18) {
                throw new PromQLException(PromQLException.ErrorType.BAD_DATA,
                        "cannot parse " + GoStrings.quote(s) + " to a valid duration. It overflows int64");
            }
            return (long) ns / 1_000_000L;
        } catch (NumberFormatException e) {
            try {
                return Literals.durationNanos(s) / 1_000_000L;
            } catch (Literals.LiteralException e2) {
                throw new PromQLException(PromQLException.ErrorType.BAD_DATA,
                        "cannot parse " + GoStrings.quote(s) + " to a valid duration");
            }
        }
    }

    // ---------------------------------------------------------------- expressions and operators

    private Expr parseQuery() {
        if (st.peek().type() == TokenType.EOF) {
            throw st.errorAt(0, 0, "no expression found in input");
        }
        Expr e = parseExpr(0);
        if (st.peek().type() != TokenType.EOF) {
            throw st.unexpected("", "");
        }
        new TypeChecker(st.query(), matchings).check(e);
        return e;
    }

    /** Binary expressions by precedence climbing; {@code minPrec} is the loosest operator taken. */
    Expr parseExpr(int minPrec) {
        st.enter();
        Expr lhs = parseUnary();
        while (true) {
            BinaryOp op = binaryOp(st.peek().type());
            if (op == null || op.precedence() < minPrec) {
                break;
            }
            lhs = parseBinary(lhs, op);
        }
        st.leave();
        return lhs;
    }

    /**
     * The operator's modifiers ({@code bool}, {@code on}/{@code ignoring}, {@code group_left}/{@code group_right})
     * and right-hand side after {@code lhs op}; kept out of {@link #parseExpr} so its frame, on the stack once per
     * nesting level, stays small.
     */
    private Expr parseBinary(Expr lhs, BinaryOp op) {
        st.advance();
        boolean returnBool = false;
        if (st.peek().type() == TokenType.BOOL) {
            st.advance();
            returnBool = true;
        }
        Cardinality card = Cardinality.ONE_TO_ONE;
        List<String> labels = List.of();
        List<String> include = List.of();
        boolean on = false;
        if (st.peek().type() == TokenType.ON || st.peek().type() == TokenType.IGNORING) {
            on = st.advance().type() == TokenType.ON;
            labels = calls.parseGroupingLabels();
            if (st.peek().type() == TokenType.GROUP_LEFT || st.peek().type() == TokenType.GROUP_RIGHT) {
                card = st.advance().type() == TokenType.GROUP_LEFT ? Cardinality.MANY_TO_ONE : Cardinality.ONE_TO_MANY;
                if (st.peek().type() == TokenType.LEFT_PAREN || !canStartExpr(st.peek().type())) {
                    include = calls.parseGroupingLabels();
                }
            }
        }
        boolean fill = false;
        while (st.peek().type() == TokenType.FILL || st.peek().type() == TokenType.FILL_LEFT || st.peek().type() == TokenType.FILL_RIGHT) {
            st.advance();
            parseFillValue();
            fill = true;
        }
        Expr rhs = parseExpr(op.rightAssociative() ? op.precedence() : op.precedence() + 1);
        if (fill) {
            throw st.error(ParseState.span(lhs.pos().start(), rhs.pos().end()), "binop fill modifiers are experimental and not enabled");
        }
        if (op.isSetOperator() && card == Cardinality.ONE_TO_ONE) {
            card = Cardinality.MANY_TO_MANY;
        }
        TypeChecker.Matching m = new TypeChecker.Matching(card, labels, on, include, returnBool);
        Expr.VectorMatching vm = lhs.type() == ValueType.VECTOR && rhs.type() == ValueType.VECTOR
                ? new Expr.VectorMatching(card, labels, on, include) : null;
        Expr.Binary b = st.track(new Expr.Binary(op, lhs, rhs, returnBool, vm, ParseState.span(lhs.pos().start(), rhs.pos().end())));
        matchings.put(b, m);
        return b;
    }

    private void parseFillValue() {
        if (st.peek().type() != TokenType.LEFT_PAREN) {
            throw st.unexpected("", "");
        }
        st.advance();
        if (st.peek().type() == TokenType.ADD || st.peek().type() == TokenType.SUB) {
            st.advance();
        }
        if (st.peek().type() != TokenType.NUMBER && st.peek().type() != TokenType.DURATION) {
            throw st.unexpected("", "");
        }
        st.advance();
        if (st.peek().type() != TokenType.RIGHT_PAREN) {
            throw st.unexpected("", "");
        }
        st.advance();
    }

    /** Whether a token can begin an expression. */
    static boolean canStartExpr(TokenType t) {
        return switch (t) {
            case NUMBER, DURATION, STRING, LEFT_PAREN, LEFT_BRACE, ADD, SUB -> true;
            default -> t.isMetricIdentifier() || t.kind == TokenType.Kind.AGGREGATOR;
        };
    }

    private static BinaryOp binaryOp(TokenType t) {
        return switch (t) {
            case ADD -> BinaryOp.ADD;
            case SUB -> BinaryOp.SUB;
            case MUL -> BinaryOp.MUL;
            case DIV -> BinaryOp.DIV;
            case MOD -> BinaryOp.MOD;
            case POW -> BinaryOp.POW;
            case ATAN2 -> BinaryOp.ATAN2;
            case EQLC -> BinaryOp.EQL;
            case NEQ -> BinaryOp.NEQ;
            case LTE -> BinaryOp.LTE;
            case LSS -> BinaryOp.LSS;
            case GTE -> BinaryOp.GTE;
            case GTR -> BinaryOp.GTR;
            case LAND -> BinaryOp.AND;
            case LOR -> BinaryOp.OR;
            case LUNLESS -> BinaryOp.UNLESS;
            default -> null;
        };
    }

    /** Unary plus/minus (operand: everything binding tighter than {@code *}), else a primary with its modifiers. */
    private Expr parseUnary() {
        if (st.peek().type() == TokenType.ADD || st.peek().type() == TokenType.SUB) {
            Token op = st.advance();
            boolean negate = op.type() == TokenType.SUB;
            Expr operand = parseExpr(BinaryOp.POW.precedence());
            if (operand instanceof Expr.NumberLiteral n) {
                return st.track(new Expr.NumberLiteral(negate ? -n.value() : n.value(), ParseState.span(op.pos(), n.pos().end()), n.duration()));
            }
            return st.track(new Expr.Unary(negate, operand, ParseState.span(op.pos(), operand.pos().end())));
        }
        return modifiers.parsePostfix(parsePrimary());
    }

    private Expr parsePrimary() {
        Token t = st.peek();
        switch (t.type()) {
            case NUMBER -> {
                st.advance();
                try {
                    return new Expr.NumberLiteral(Literals.number(t.text()), ParseState.span(t.pos(), t.end()));
                } catch (Literals.LiteralException e) {
                    throw st.error(t, "error parsing number: " + e.getMessage());
                }
            }
            case DURATION -> {
                st.advance();
                return new Expr.NumberLiteral(st.durationSeconds(t), ParseState.span(t.pos(), t.end()), true);
            }
            case STRING -> {
                st.advance();
                return new Expr.StringLiteral(t.value(), ParseState.span(t.pos(), t.end()));
            }
            case LEFT_PAREN -> {
                st.advance();
                Expr inner = parseExpr(0);
                if (st.peek().type() != TokenType.RIGHT_PAREN) {
                    throw st.unexpected("", "");
                }
                Token close = st.advance();
                return st.track(new Expr.Paren(inner, ParseState.span(t.pos(), close.end())));
            }
            case LEFT_BRACE -> {
                return selectors.parseSelector(null);
            }
            case IDENTIFIER -> {
                st.advance();
                if (st.peek().type() == TokenType.LEFT_PAREN) {
                    return calls.parseCall(t);
                }
                return selectors.parseSelector(t);
            }
            case START, END, STEP, RANGE, MAX_OF, MIN_OF -> {
                st.advance();
                if (st.peek().type() == TokenType.LEFT_PAREN) {
                    return calls.parseCall(t);
                }
                return selectors.parseSelector(t);
            }
            default -> {
                if (t.type().kind == TokenType.Kind.AGGREGATOR) {
                    st.advance();
                    if (st.peek().type() == TokenType.LEFT_PAREN || st.peek().type() == TokenType.BY || st.peek().type() == TokenType.WITHOUT) {
                        return calls.parseAggregate(t);
                    }
                    return selectors.parseSelector(t);
                }
                if (t.type().isMetricIdentifier()) {
                    st.advance();
                    return selectors.parseSelector(t);
                }
                throw st.unexpected("", "");
            }
        }
    }
}
