package io.sluice.promql.parse;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Expr.AtKind;

/** The parser's modifiers after a primary: {@code [range]}, {@code [range:step]}, {@code offset} and {@code @}. */
final class ModifierParser {
    private final ParseState st;

    ModifierParser(ParseState st) {
        this.st = st;
    }

    /** The modifiers written after {@code e}, applied left to right. */
    Expr parsePostfix(Expr e) {
        while (true) {
            switch (st.peek().type()) {
                case LEFT_BRACKET -> e = parseRangeOrSubquery(e);
                case OFFSET -> e = parseOffset(e);
                case AT -> e = parseAt(e);
                case ANCHORED, SMOOTHED -> {
                    // Prometheus' extended range selectors: experimental, off unless enabled.
                    throw st.error(e.pos(), st.advance().text().toLowerCase(java.util.Locale.ROOT)
                            + " modifier is experimental and not enabled");
                }
                default -> {
                    return e;
                }
            }
        }
    }

    private Expr parseRangeOrSubquery(Expr e) {
        Token open = st.advance();
        long rangeMs = durationInBrackets("subquery or range selector", "number, duration, step(), or range()");
        if (st.peek().type() == TokenType.RIGHT_BRACKET) {
            Token close = st.advance();
            String msg = null;
            if (!(e instanceof Expr.VectorSelector vs)) {
                msg = "ranges only allowed for vector selectors";
            } else if (vs.offsetMs() != 0) {
                msg = "no offset modifiers allowed before range";
            } else if (vs.atKind() != AtKind.NONE) {
                msg = "no @ modifiers allowed before range";
            }
            if (msg != null) {
                throw st.errorAt(open.pos(), close.end(), msg);
            }
            return st.track(new Expr.MatrixSelector((Expr.VectorSelector) e, rangeMs, ParseState.span(e.pos().start(), close.end())));
        }
        if (st.peek().type() != TokenType.COLON) {
            throw st.unexpected("subquery or range", "\":\" or \"]\"");
        }
        st.advance();
        long stepMs = 0;
        if (st.peek().type() != TokenType.RIGHT_BRACKET) {
            stepMs = durationInBrackets("subquery selector", "number, duration, step(), range(), or \"]\"");
            if (st.peek().type() != TokenType.RIGHT_BRACKET) {
                throw st.unexpected("subquery selector", "\"]\"");
            }
        }
        Token close = st.advance();
        return st.track(new Expr.Subquery(e, rangeMs, stepMs, 0, AtKind.NONE, 0, ParseState.span(e.pos().start(), close.end())));
    }

    /** A positive duration inside brackets: {@code 5m}, {@code 300}, {@code 1.5}; in milliseconds. */
    private long durationInBrackets(String context, String expected) {
        Signed d = signedLiteral(context, expected);
        double seconds = d.seconds();
        int start = d.start();
        if (isDurationOperator(st.peek().type())) {
            throw st.errorAt(start, d.end(), "experimental duration expression is not enabled");
        }
        if (Literals.durationOutOfRange(seconds)) {
            throw st.errorAt(start, d.end(), "duration out of range");
        }
        if (seconds <= 0) {
            throw st.errorAt(start, d.end(), "duration must be greater than 0");
        }
        return Literals.secondsToMillis(seconds);
    }

    /** A number or duration in seconds after any signs; it spans from the first sign to the literal's end. */
    private record Signed(double seconds, int start, int end) {
    }

    /** {@code [+-]... number-or-duration}, as ranges, steps and offsets take it. */
    private Signed signedLiteral(String context, String expected) {
        Token sign = null;
        boolean negate = false;
        while (st.peek().type() == TokenType.ADD || st.peek().type() == TokenType.SUB) {
            Token s = st.advance();
            sign = sign == null ? s : sign;
            negate ^= s.type() == TokenType.SUB;
        }
        rejectDurationExpression();
        if (st.peek().type() != TokenType.NUMBER && st.peek().type() != TokenType.DURATION) {
            throw st.unexpected(context, expected);
        }
        Token lit = st.advance();
        double seconds = literalSeconds(lit);
        if (negate) {
            seconds = -seconds;
        }
        return new Signed(seconds, sign != null ? sign.pos() : lit.pos(), lit.end());
    }

    private void rejectDurationExpression() {
        switch (st.peek().type()) {
            case STEP, RANGE, MAX_OF, MIN_OF, LEFT_PAREN ->
                    throw st.error(st.peek(), "experimental duration expression is not enabled");
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
            return st.durationSeconds(lit);
        }
        try {
            return Literals.number(lit.text());
        } catch (Literals.LiteralException e) {
            throw st.error(lit, "error parsing number: " + e.getMessage());
        }
    }

    private Expr parseOffset(Expr e) {
        st.advance();
        Signed d = signedLiteral("offset", "number, duration, step(), or range()");
        double seconds = d.seconds();
        if (Literals.durationOutOfRange(seconds)) {
            throw st.errorAt(d.start(), d.end(), "duration out of range");
        }
        long offsetMs = Literals.secondsToMillis(seconds);
        int end = d.end();
        String notAllowed = "offset modifier must be preceded by an instant vector selector or range vector selector or a subquery";
        String twice = "offset may not be set multiple times";
        return switch (e) {
            case Expr.VectorSelector vs -> {
                if (vs.offsetMs() != 0) {
                    throw st.error(e.pos(), twice);
                }
                yield new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.atKind(), vs.atMs(),
                        ParseState.span(vs.pos().start(), end));
            }
            case Expr.MatrixSelector ms -> {
                Expr.VectorSelector vs = ms.selector();
                if (vs.offsetMs() != 0) {
                    throw st.error(e.pos(), twice);
                }
                yield new Expr.MatrixSelector(new Expr.VectorSelector(vs.name(), vs.matchers(), offsetMs, vs.atKind(),
                        vs.atMs(), vs.pos()), ms.rangeMs(), ParseState.span(ms.pos().start(), end));
            }
            case Expr.Subquery sq -> {
                if (sq.offsetMs() != 0) {
                    throw st.error(e.pos(), twice);
                }
                yield st.track(new Expr.Subquery(sq.expr(), sq.rangeMs(), sq.stepMs(), offsetMs, sq.atKind(), sq.atMs(),
                        ParseState.span(sq.pos().start(), end)));
            }
            default -> throw st.error(e.pos(), notAllowed);
        };
    }

    private Expr parseAt(Expr e) {
        st.advance();
        AtKind kind;
        long atMs = 0;
        int end;
        if (st.peek().type() == TokenType.START || st.peek().type() == TokenType.END) {
            kind = st.advance().type() == TokenType.START ? AtKind.START : AtKind.END;
            if (st.peek().type() != TokenType.LEFT_PAREN) {
                throw st.unexpected("@", "timestamp");
            }
            st.advance();
            if (st.peek().type() != TokenType.RIGHT_PAREN) {
                throw st.unexpected("@", "timestamp");
            }
            end = st.advance().end();
        } else {
            Token sign = null;
            if (st.peek().type() == TokenType.ADD || st.peek().type() == TokenType.SUB) {
                sign = st.advance();
            }
            if (st.peek().type() != TokenType.NUMBER && st.peek().type() != TokenType.DURATION) {
                throw st.unexpected("@", "timestamp");
            }
            Token lit = st.advance();
            double ts = literalSeconds(lit);
            if (sign != null && sign.type() == TokenType.SUB) {
                ts = -ts;
            }
            if (Double.isNaN(ts) || Double.isInfinite(ts) || ts >= 9.223372036854775807e18 || ts <= -9.223372036854775808e18) {
                throw st.error(e.pos(), "timestamp out of bounds for @ modifier: " + goFloatF(ts));
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
                    throw st.error(e.pos(), twice);
                }
                yield new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), kind, atMs, ParseState.span(vs.pos().start(), end));
            }
            case Expr.MatrixSelector ms -> {
                Expr.VectorSelector vs = ms.selector();
                if (vs.atKind() != AtKind.NONE) {
                    throw st.error(e.pos(), twice);
                }
                yield new Expr.MatrixSelector(new Expr.VectorSelector(vs.name(), vs.matchers(), vs.offsetMs(), kind, atMs,
                        vs.pos()), ms.rangeMs(), ParseState.span(ms.pos().start(), end));
            }
            case Expr.Subquery sq -> {
                if (sq.atKind() != AtKind.NONE) {
                    throw st.error(e.pos(), twice);
                }
                yield st.track(new Expr.Subquery(sq.expr(), sq.rangeMs(), sq.stepMs(), sq.offsetMs(), kind, atMs,
                        ParseState.span(sq.pos().start(), end)));
            }
            default -> throw st.error(e.pos(), notAllowed);
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
}
