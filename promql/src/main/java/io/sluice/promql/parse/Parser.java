package io.sluice.promql.parse;

import io.sluice.promql.ParseException;
import io.sluice.promql.PromQLException;
import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Expr.AtKind;
import io.sluice.promql.ast.Expr.Cardinality;
import io.sluice.promql.ast.Functions;
import io.sluice.promql.ast.PosRange;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import java.util.ArrayList;
import java.util.Collections;
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
 */
public final class Parser {
    /** The deepest expression tree accepted (parentheses, operators, calls all count). */
    public static final int MAX_DEPTH = 500;

    private final String query;
    private final Lexer lexer;
    /** The lookahead, read only when the grammar needs it (so errors come in Prometheus' order); null until then. */
    private Token la;
    /** How many aggregation bodies enclose the parse position (syntax errors there say "in aggregation"). */
    private int aggDepth;
    private int depth;
    /** Vector matching as written, for the type checks (the tree keeps it only between two vectors). */
    private final Map<Expr.Binary, TypeChecker.Matching> matchings = new IdentityHashMap<>();


    private Parser(String query) {
        this.query = query;
        this.lexer = new Lexer(query);
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
        Parser p = new Parser(selector);
        Token first = p.peek();
        Expr.VectorSelector vs;
        if (first.type() == TokenType.LEFT_BRACE) {
            vs = p.parseSelector(null);
        } else if (first.type().isMetricIdentifier()) {
            p.advance();
            vs = p.parseSelector(first);
        } else {
            throw p.unexpected("", "");
        }
        if (p.peek().type() != TokenType.EOF) {
            throw p.unexpected("", "");
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

    // ---------------------------------------------------------------- parsing

    private Expr parseQuery() {
        if (peek().type() == TokenType.EOF) {
            throw Errors.at(query, 0, 0, "no expression found in input");
        }
        Expr e = parseExpr(0);
        if (peek().type() != TokenType.EOF) {
            throw unexpected("", "");
        }
        new TypeChecker(query, matchings).check(e);
        return e;
    }

    private Token advance() {
        Token t = peek();
        la = null;
        return t;
    }

    private Token peek() {
        if (la == null) {
            la = lexer.next();
        }
        return la;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw Errors.at(query, peek().pos(), peek().end(),
                    "expression nested too deeply (more than " + MAX_DEPTH + " levels)");
        }
    }

    private ParseException unexpected(String context, String expected) {
        if (context.isEmpty() && aggDepth > 0) {
            context = "aggregation";
        }
        StringBuilder sb = new StringBuilder("unexpected ").append(peek().describe());
        if (!context.isEmpty()) {
            sb.append(" in ").append(context);
        }
        if (!expected.isEmpty()) {
            sb.append(", expected ").append(expected);
        }
        return Errors.at(query, peek().pos(), peek().end(), sb.toString());
    }

    private ParseException error(PosRange pos, String detail) {
        return Errors.at(query, pos.start(), pos.end(), detail);
    }

    private ParseException error(Token t, String detail) {
        return Errors.at(query, t.pos(), t.end(), detail);
    }

    private static PosRange span(int start, int end) {
        return new PosRange(start, end);
    }

    /** Binary expressions by precedence climbing; {@code minPrec} is the loosest operator taken. */
    private Expr parseExpr(int minPrec) {
        enter();
        Expr lhs = parseUnary();
        while (true) {
            BinaryOp op = binaryOp(peek().type());
            if (op == null || op.precedence() < minPrec) {
                break;
            }
            advance();
            boolean returnBool = false;
            if (peek().type() == TokenType.BOOL) {
                advance();
                returnBool = true;
            }
            Cardinality card = Cardinality.ONE_TO_ONE;
            List<String> labels = List.of();
            List<String> include = List.of();
            boolean on = false;
            if (peek().type() == TokenType.ON || peek().type() == TokenType.IGNORING) {
                on = advance().type() == TokenType.ON;
                labels = parseGroupingLabels();
                if (peek().type() == TokenType.GROUP_LEFT || peek().type() == TokenType.GROUP_RIGHT) {
                    card = advance().type() == TokenType.GROUP_LEFT ? Cardinality.MANY_TO_ONE : Cardinality.ONE_TO_MANY;
                    if (peek().type() == TokenType.LEFT_PAREN || !canStartExpr(peek().type())) {
                        include = parseGroupingLabels();
                    }
                }
            }
            boolean fill = false;
            while (peek().type() == TokenType.FILL || peek().type() == TokenType.FILL_LEFT || peek().type() == TokenType.FILL_RIGHT) {
                advance();
                parseFillValue();
                fill = true;
            }
            Expr rhs = parseExpr(op.rightAssociative() ? op.precedence() : op.precedence() + 1);
            if (fill) {
                throw error(span(lhs.pos().start(), rhs.pos().end()), "binop fill modifiers are experimental and not enabled");
            }
            if (op.isSetOperator() && card == Cardinality.ONE_TO_ONE) {
                card = Cardinality.MANY_TO_MANY;
            }
            TypeChecker.Matching m = new TypeChecker.Matching(card, labels, on, include, returnBool);
            Expr.VectorMatching vm = lhs.type() == ValueType.VECTOR && rhs.type() == ValueType.VECTOR
                    ? new Expr.VectorMatching(card, labels, on, include) : null;
            Expr.Binary b = track(new Expr.Binary(op, lhs, rhs, returnBool, vm, span(lhs.pos().start(), rhs.pos().end())));
            matchings.put(b, m);
            lhs = b;
        }
        depth--;
        return lhs;
    }

    private void parseFillValue() {
        if (peek().type() != TokenType.LEFT_PAREN) {
            throw unexpected("", "");
        }
        advance();
        if (peek().type() == TokenType.ADD || peek().type() == TokenType.SUB) {
            advance();
        }
        if (peek().type() != TokenType.NUMBER && peek().type() != TokenType.DURATION) {
            throw unexpected("", "");
        }
        advance();
        if (peek().type() != TokenType.RIGHT_PAREN) {
            throw unexpected("", "");
        }
        advance();
    }

    /** Whether a token can begin an expression. */
    private static boolean canStartExpr(TokenType t) {
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
        if (peek().type() == TokenType.ADD || peek().type() == TokenType.SUB) {
            Token op = advance();
            boolean negate = op.type() == TokenType.SUB;
            Expr operand = parseExpr(BinaryOp.POW.precedence());
            if (operand instanceof Expr.NumberLiteral n) {
                return track(new Expr.NumberLiteral(negate ? -n.value() : n.value(), span(op.pos(), n.pos().end()), n.duration()));
            }
            return track(new Expr.Unary(negate, operand, span(op.pos(), operand.pos().end())));
        }
        return parsePostfix(parsePrimary());
    }

    private Expr parsePrimary() {
        Token t = peek();
        switch (t.type()) {
            case NUMBER -> {
                advance();
                try {
                    return new Expr.NumberLiteral(Literals.number(t.text()), span(t.pos(), t.end()));
                } catch (Literals.LiteralException e) {
                    throw error(t, "error parsing number: " + e.getMessage());
                }
            }
            case DURATION -> {
                advance();
                return new Expr.NumberLiteral(durationSeconds(t), span(t.pos(), t.end()), true);
            }
            case STRING -> {
                advance();
                return new Expr.StringLiteral(t.value(), span(t.pos(), t.end()));
            }
            case LEFT_PAREN -> {
                advance();
                Expr inner = parseExpr(0);
                if (peek().type() != TokenType.RIGHT_PAREN) {
                    throw unexpected("", "");
                }
                Token close = advance();
                return track(new Expr.Paren(inner, span(t.pos(), close.end())));
            }
            case LEFT_BRACE -> {
                return parseSelector(null);
            }
            case IDENTIFIER -> {
                advance();
                if (peek().type() == TokenType.LEFT_PAREN) {
                    return parseCall(t);
                }
                return parseSelector(t);
            }
            case START, END, STEP, RANGE, MAX_OF, MIN_OF -> {
                advance();
                if (peek().type() == TokenType.LEFT_PAREN) {
                    return parseCall(t);
                }
                return parseSelector(t);
            }
            default -> {
                if (t.type().kind == TokenType.Kind.AGGREGATOR) {
                    advance();
                    if (peek().type() == TokenType.LEFT_PAREN || peek().type() == TokenType.BY || peek().type() == TokenType.WITHOUT) {
                        return parseAggregate(t);
                    }
                    return parseSelector(t);
                }
                if (t.type().isMetricIdentifier()) {
                    advance();
                    return parseSelector(t);
                }
                throw unexpected("", "");
            }
        }
    }

    private double durationSeconds(Token t) {
        try {
            long ns = Literals.durationNanos(t.text());
            return (ns / 1_000_000_000L) + (ns % 1_000_000_000L) / 1e9;
        } catch (Literals.LiteralException e) {
            throw error(t, e.getMessage());
        }
    }

    // ---------------------------------------------------------------- selectors

    /** A vector selector after its metric name (null when it starts with a brace); the lookahead is after the name. */
    private Expr.VectorSelector parseSelector(Token name) {
        int start = name != null ? name.pos() : peek().pos();
        int end = name != null ? name.end() : peek().pos();
        List<LabelMatcher> matchers = new ArrayList<>();
        if (peek().type() == TokenType.LEFT_BRACE) {
            end = parseMatchers(matchers);
        }
        String metric = null;
        if (name != null) {
            metric = name.text();
            matchers.add(LabelMatcher.equal(Labels.METRIC_NAME, metric));
        }
        return new Expr.VectorSelector(metric, List.copyOf(matchers), 0, AtKind.NONE, 0, span(start, end));
    }

    /** {@code { matcher, ... }}; returns the end of the closing brace. */
    private int parseMatchers(List<LabelMatcher> out) {
        advance();
        if (peek().type() == TokenType.RIGHT_BRACE) {
            return advance().end();
        }
        while (true) {
            if (peek().type() == TokenType.IDENTIFIER) {
                Token label = advance();
                if (!isMatchOp(peek().type())) {
                    throw unexpected("label matching", "label matching operator");
                }
                out.add(matcher(label, label.text()));
            } else if (peek().type() == TokenType.STRING) {
                Token label = advance();
                if (isMatchOp(peek().type())) {
                    out.add(matcher(label, label.value()));
                } else {
                    out.add(LabelMatcher.equal(Labels.METRIC_NAME, label.value()));
                }
            } else {
                throw unexpected("label matching", "identifier or \"}\"");
            }
            if (peek().type() == TokenType.COMMA) {
                advance();
                if (peek().type() == TokenType.RIGHT_BRACE) {
                    return advance().end();
                }
            } else if (peek().type() == TokenType.RIGHT_BRACE) {
                return advance().end();
            } else {
                throw unexpected("label matching", "\",\" or \"}\"");
            }
        }
    }

    private static boolean isMatchOp(TokenType t) {
        return t == TokenType.EQL || t == TokenType.NEQ || t == TokenType.EQL_REGEX || t == TokenType.NEQ_REGEX;
    }

    private LabelMatcher matcher(Token label, String name) {
        Token op = advance();
        if (peek().type() != TokenType.STRING) {
            throw unexpected("label matching", "string");
        }
        Token value = advance();
        LabelMatcher.Type type = switch (op.type()) {
            case EQL -> LabelMatcher.Type.EQUAL;
            case NEQ -> LabelMatcher.Type.NOT_EQUAL;
            case EQL_REGEX -> LabelMatcher.Type.REGEX;
            default -> LabelMatcher.Type.NOT_REGEX;
        };
        try {
            return LabelMatcher.of(type, name, value.value());
        } catch (IllegalArgumentException e) {
            throw Errors.at(query, label.pos(), value.end(), regexError(value.value(), e));
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

    // ---------------------------------------------------------------- calls and aggregations

    private Expr parseCall(Token name) {
        List<Expr> args = new ArrayList<>();
        int end = parseCallBody(args);
        Functions.Function fn = Functions.get(name.text());
        if (fn == null) {
            throw error(name, "unknown function with name " + GoStrings.quote(name.text()));
        }
        return track(new Expr.Call(fn.name(), List.copyOf(args), fn.returnType(), span(name.pos(), end)));
    }

    /** {@code ( expr, ... )}; returns the end of the closing parenthesis. */
    private int parseCallBody(List<Expr> args) {
        advance();
        if (peek().type() == TokenType.RIGHT_PAREN) {
            return advance().end();
        }
        while (true) {
            args.add(parseExpr(0));
            if (peek().type() == TokenType.COMMA) {
                Token comma = advance();
                if (!canStartExpr(peek().type())) {
                    throw error(comma, "trailing commas not allowed in function call args");
                }
            } else if (peek().type() == TokenType.RIGHT_PAREN) {
                return advance().end();
            } else {
                throw unexpected("", "");
            }
        }
    }

    private Expr parseAggregate(Token opTok) {
        aggDepth++;
        Expr e = parseAggregateBody(opTok);
        aggDepth--;
        return e;
    }

    private Expr parseAggregateBody(Token opTok) {
        AggregateOp op = AggregateOp.valueOf(opTok.type().name());
        List<String> grouping = List.of();
        boolean without = false;
        boolean modifierFirst = false;
        if (peek().type() == TokenType.BY || peek().type() == TokenType.WITHOUT) {
            without = advance().type() == TokenType.WITHOUT;
            grouping = parseGroupingLabels();
            modifierFirst = true;
            if (peek().type() != TokenType.LEFT_PAREN) {
                throw unexpected("aggregation", "");
            }
        }
        List<Expr> args = new ArrayList<>();
        int end = parseCallBody(args);
        if (!modifierFirst && (peek().type() == TokenType.BY || peek().type() == TokenType.WITHOUT)) {
            without = advance().type() == TokenType.WITHOUT;
            grouping = parseGroupingLabels();
            end = lastGroupingEnd;
        }
        PosRange pos = span(opTok.pos(), end);
        if (args.isEmpty()) {
            throw error(pos, "no arguments for aggregate expression provided");
        }
        int desired = op.hasParameter() ? 2 : 1;
        if (args.size() != desired) {
            throw error(pos, "wrong number of arguments for aggregate expression provided, expected " + desired
                    + ", got " + args.size());
        }
        Expr param = op.hasParameter() ? args.get(0) : null;
        return track(new Expr.Aggregate(op, args.get(desired - 1), param, grouping, without, pos));
    }

    private int lastGroupingEnd;

    /** {@code ( label, ... )} after by/without/on/ignoring/group_left/group_right. */
    private List<String> parseGroupingLabels() {
        if (peek().type() != TokenType.LEFT_PAREN) {
            throw unexpected("grouping opts", "\"(\"");
        }
        advance();
        List<String> labels = new ArrayList<>();
        if (peek().type() == TokenType.RIGHT_PAREN) {
            lastGroupingEnd = advance().end();
            return List.of();
        }
        while (true) {
            if (peek().type() == TokenType.STRING) {
                Token t = advance();
                if (t.value().isEmpty()) {
                    throw error(t, "invalid label name for grouping: " + GoStrings.quote(t.value()));
                }
                labels.add(t.value());
            } else if (peek().type().isMaybeLabel()) {
                labels.add(advance().text());
            } else {
                throw unexpected("grouping opts", "label");
            }
            if (peek().type() == TokenType.COMMA) {
                advance();
                if (peek().type() == TokenType.RIGHT_PAREN) {
                    break;
                }
            } else if (peek().type() != TokenType.RIGHT_PAREN) {
                throw unexpected("grouping opts", "\",\" or \")\"");
            } else {
                break;
            }
        }
        lastGroupingEnd = advance().end();
        return Collections.unmodifiableList(labels);
    }

    // ---------------------------------------------------------------- modifiers: [range], [range:step], offset, @

    private Expr parsePostfix(Expr e) {
        while (true) {
            switch (peek().type()) {
                case LEFT_BRACKET -> e = parseRangeOrSubquery(e);
                case OFFSET -> e = parseOffset(e);
                case AT -> e = parseAt(e);
                case ANCHORED, SMOOTHED -> {
                    // Prometheus' extended range selectors: experimental, off unless enabled.
                    throw error(e.pos(), advance().text().toLowerCase(java.util.Locale.ROOT)
                            + " modifier is experimental and not enabled");
                }
                default -> {
                    return e;
                }
            }
        }
    }

    private Expr parseRangeOrSubquery(Expr e) {
        Token open = advance();
        long rangeMs = durationInBrackets("subquery or range selector", "number, duration, step(), or range()");
        if (peek().type() == TokenType.RIGHT_BRACKET) {
            Token close = advance();
            String msg = null;
            if (!(e instanceof Expr.VectorSelector vs)) {
                msg = "ranges only allowed for vector selectors";
            } else if (vs.offsetMs() != 0) {
                msg = "no offset modifiers allowed before range";
            } else if (vs.atKind() != AtKind.NONE) {
                msg = "no @ modifiers allowed before range";
            }
            if (msg != null) {
                throw Errors.at(query, open.pos(), close.end(), msg);
            }
            return track(new Expr.MatrixSelector((Expr.VectorSelector) e, rangeMs, span(e.pos().start(), close.end())));
        }
        if (peek().type() != TokenType.COLON) {
            throw unexpected("subquery or range", "\":\" or \"]\"");
        }
        advance();
        long stepMs = 0;
        if (peek().type() != TokenType.RIGHT_BRACKET) {
            stepMs = durationInBrackets("subquery selector", "number, duration, step(), range(), or \"]\"");
            if (peek().type() != TokenType.RIGHT_BRACKET) {
                throw unexpected("subquery selector", "\"]\"");
            }
        }
        Token close = advance();
        return track(new Expr.Subquery(e, rangeMs, stepMs, 0, AtKind.NONE, 0, span(e.pos().start(), close.end())));
    }

    /** A positive duration inside brackets: {@code 5m}, {@code 300}, {@code 1.5}; in milliseconds. */
    private long durationInBrackets(String context, String expected) {
        Token sign = null;
        boolean negate = false;
        while (peek().type() == TokenType.ADD || peek().type() == TokenType.SUB) {
            Token s = advance();
            sign = sign == null ? s : sign;
            negate ^= s.type() == TokenType.SUB;
        }
        rejectDurationExpression();
        if (peek().type() != TokenType.NUMBER && peek().type() != TokenType.DURATION) {
            throw unexpected(context, expected);
        }
        Token lit = advance();
        double seconds = literalSeconds(lit);
        if (negate) {
            seconds = -seconds;
        }
        int start = sign != null ? sign.pos() : lit.pos();
        if (isDurationOperator(peek().type())) {
            throw Errors.at(query, start, lit.end(), "experimental duration expression is not enabled");
        }
        if (Literals.durationOutOfRange(seconds)) {
            throw Errors.at(query, start, lit.end(), "duration out of range");
        }
        if (seconds <= 0) {
            throw Errors.at(query, start, lit.end(), "duration must be greater than 0");
        }
        return Literals.secondsToMillis(seconds);
    }

    private void rejectDurationExpression() {
        switch (peek().type()) {
            case STEP, RANGE, MAX_OF, MIN_OF, LEFT_PAREN ->
                    throw error(peek(), "experimental duration expression is not enabled");
            default -> {
            }
        }
    }

    private static boolean isDurationOperator(TokenType t) {
        return switch (t) {
            case ADD, SUB, MUL, DIV, MOD, POW -> true;
            default -> false;
        };
    }

    private double literalSeconds(Token lit) {
        if (lit.type() == TokenType.DURATION) {
            return durationSeconds(lit);
        }
        try {
            return Literals.number(lit.text());
        } catch (Literals.LiteralException e) {
            throw error(lit, "error parsing number: " + e.getMessage());
        }
    }

    private Expr parseOffset(Expr e) {
        advance();
        Token sign = null;
        boolean negate = false;
        while (peek().type() == TokenType.ADD || peek().type() == TokenType.SUB) {
            Token s = advance();
            sign = sign == null ? s : sign;
            negate ^= s.type() == TokenType.SUB;
        }
        rejectDurationExpression();
        if (peek().type() != TokenType.NUMBER && peek().type() != TokenType.DURATION) {
            throw unexpected("offset", "number, duration, step(), or range()");
        }
        Token lit = advance();
        double seconds = literalSeconds(lit);
        if (negate) {
            seconds = -seconds;
        }
        if (Literals.durationOutOfRange(seconds)) {
            throw Errors.at(query, sign != null ? sign.pos() : lit.pos(), lit.end(), "duration out of range");
        }
        long offsetMs = Literals.secondsToMillis(seconds);
        int end = lit.end();
        String notAllowed = "offset modifier must be preceded by an instant vector selector or range vector selector or a subquery";
        String twice = "offset may not be set multiple times";
        return switch (e) {
            case Expr.VectorSelector vs -> {
                if (vs.offsetMs() != 0) {
                    throw error(e.pos(), twice);
                }
                yield new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.atKind(), vs.atMs(),
                        span(vs.pos().start(), end));
            }
            case Expr.MatrixSelector ms -> {
                Expr.VectorSelector vs = ms.selector();
                if (vs.offsetMs() != 0) {
                    throw error(e.pos(), twice);
                }
                yield new Expr.MatrixSelector(new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.atKind(),
                        vs.atMs(), vs.pos()), ms.rangeMs(), span(ms.pos().start(), end));
            }
            case Expr.Subquery sq -> {
                if (sq.offsetMs() != 0) {
                    throw error(e.pos(), twice);
                }
                yield track(new Expr.Subquery(sq.expr(), sq.rangeMs(), sq.stepMs(), offsetMs, sq.atKind(), sq.atMs(),
                        span(sq.pos().start(), end)));
            }
            default -> throw error(e.pos(), notAllowed);
        };
    }

    private Expr parseAt(Expr e) {
        advance();
        AtKind kind;
        long atMs = 0;
        int end;
        if (peek().type() == TokenType.START || peek().type() == TokenType.END) {
            kind = advance().type() == TokenType.START ? AtKind.START : AtKind.END;
            if (peek().type() != TokenType.LEFT_PAREN) {
                throw unexpected("@", "timestamp");
            }
            advance();
            if (peek().type() != TokenType.RIGHT_PAREN) {
                throw unexpected("@", "timestamp");
            }
            end = advance().end();
        } else {
            Token sign = null;
            if (peek().type() == TokenType.ADD || peek().type() == TokenType.SUB) {
                sign = advance();
            }
            if (peek().type() != TokenType.NUMBER && peek().type() != TokenType.DURATION) {
                throw unexpected("@", "timestamp");
            }
            Token lit = advance();
            double ts = literalSeconds(lit);
            if (sign != null && sign.type() == TokenType.SUB) {
                ts = -ts;
            }
            if (Double.isNaN(ts) || Double.isInfinite(ts) || ts >= 9.223372036854775807e18 || ts <= -9.223372036854775808e18) {
                throw error(e.pos(), "timestamp out of bounds for @ modifier: " + goFloatF(ts));
            }
            kind = AtKind.TIMESTAMP;
            atMs = Literals.goRound(ts * 1000.0);
            end = lit.end();
        }
        String notAllowed = "@ modifier must be preceded by an instant vector selector or range vector selector or a subquery";
        String twice = "@ <timestamp> may not be set multiple times";
        return switch (e) {
            case Expr.VectorSelector vs -> {
                if (vs.atKind() != AtKind.NONE) {
                    throw error(e.pos(), twice);
                }
                yield new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), kind, atMs, span(vs.pos().start(), end));
            }
            case Expr.MatrixSelector ms -> {
                Expr.VectorSelector vs = ms.selector();
                if (vs.atKind() != AtKind.NONE) {
                    throw error(e.pos(), twice);
                }
                yield new Expr.MatrixSelector(new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), kind, atMs,
                        vs.pos()), ms.rangeMs(), span(ms.pos().start(), end));
            }
            case Expr.Subquery sq -> {
                if (sq.atKind() != AtKind.NONE) {
                    throw error(e.pos(), twice);
                }
                yield track(new Expr.Subquery(sq.expr(), sq.rangeMs(), sq.stepMs(), sq.offsetMs(), kind, atMs,
                        span(sq.pos().start(), end)));
            }
            default -> throw error(e.pos(), notAllowed);
        };
    }

    private static String goFloatF(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return new java.math.BigDecimal(v).setScale(6, java.math.RoundingMode.HALF_EVEN).toPlainString();
    }

    // ---------------------------------------------------------------- checks over the finished tree

    /** Heights of the nodes built so far (leaves are absent: height 1). */
    private final Map<Expr, Integer> heights = new IdentityHashMap<>();

    /** Records a new node's height; refuses trees deeper than {@link #MAX_DEPTH} (long operator chains nest too). */
    private <T extends Expr> T track(T e) {
        int h = 1;
        for (Expr c : children(e)) {
            h = Math.max(h, heights.getOrDefault(c, 1) + 1);
        }
        if (h > MAX_DEPTH) {
            throw error(e.pos(), "expression nested too deeply (more than " + MAX_DEPTH + " levels)");
        }
        heights.put(e, h);
        return e;
    }

    private static List<Expr> children(Expr e) {
        return switch (e) {
            case Expr.Binary b -> List.of(b.lhs(), b.rhs());
            case Expr.Unary u -> List.of(u.expr());
            case Expr.Paren p -> List.of(p.expr());
            case Expr.Call c -> c.args();
            case Expr.Aggregate a -> a.param() == null ? List.of(a.expr()) : List.of(a.param(), a.expr());
            case Expr.Subquery s -> List.of(s.expr());
            case Expr.MatrixSelector m -> List.of(m.selector());
            default -> List.of();
        };
    }
}
