package io.sluice.promql.parse;

import io.sluice.promql.ParseException;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.PosRange;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the parser's parts share while parsing one query: the lexer and its one token of lookahead, the
 * nesting bounds ({@link Parser#MAX_DEPTH}) and the error texts with their positions.
 */
final class ParseState {
    private final String query;
    private final Lexer lexer;
    /** The lookahead, read only when the grammar needs it (so errors come in Prometheus' order); null until then. */
    private Token la;
    /** How many aggregation bodies enclose the parse position (syntax errors there say "in aggregation"). */
    private int aggDepth;
    private int depth;
    /** Heights of the nodes built so far (leaves are absent: height 1). */
    private final Map<Expr, Integer> heights = new IdentityHashMap<>();

    ParseState(String query) {
        this.query = query;
        this.lexer = new Lexer(query);
    }

    String query() {
        return query;
    }

    Token advance() {
        Token t = peek();
        la = null;
        return t;
    }

    Token peek() {
        if (la == null) {
            la = lexer.next();
        }
        return la;
    }

    /** One level deeper in the recursive descent; refuses more than {@link Parser#MAX_DEPTH}. */
    void enter() {
        if (++depth > Parser.MAX_DEPTH) {
            throw errorAt(peek().pos(), peek().end(),
                    "expression nested too deeply (more than " + Parser.MAX_DEPTH + " levels)");
        }
    }

    void leave() {
        depth--;
    }

    void enterAggregation() {
        aggDepth++;
    }

    void leaveAggregation() {
        aggDepth--;
    }

    ParseException unexpected(String context, String expected) {
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
        return errorAt(peek().pos(), peek().end(), sb.toString());
    }

    ParseException errorAt(int start, int end, String detail) {
        return Errors.at(query, start, end, detail);
    }

    ParseException error(PosRange pos, String detail) {
        return errorAt(pos.start(), pos.end(), detail);
    }

    ParseException error(Token t, String detail) {
        return errorAt(t.pos(), t.end(), detail);
    }

    static PosRange span(int start, int end) {
        return new PosRange(start, end);
    }

    /** A duration token's value in seconds. */
    double durationSeconds(Token t) {
        try {
            long ns = Literals.durationNanos(t.text());
            return (ns / 1_000_000_000L) + (ns % 1_000_000_000L) / 1e9;
        } catch (Literals.LiteralException e) {
            throw error(t, e.getMessage());
        }
    }

    /** Records a new node's height; refuses trees deeper than {@link Parser#MAX_DEPTH} (long operator chains nest too). */
    <T extends Expr> T track(T e) {
        int h = 1;
        for (Expr c : children(e)) {
            h = Math.max(h, heights.getOrDefault(c, 1) + 1);
        }
        if (h > Parser.MAX_DEPTH) {
            throw error(e.pos(), "expression nested too deeply (more than " + Parser.MAX_DEPTH + " levels)");
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
