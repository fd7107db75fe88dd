package io.sluice.promql.parse;

import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Functions;
import io.sluice.promql.ast.PosRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The parser's function calls, aggregations and grouping label lists ({@code by}, {@code on}, ...). */
final class CallParser {
    private final ParseState st;
    private final Parser parser;
    /** Where the last grouping label list ended (its closing parenthesis). */
    private int lastGroupingEnd;

    CallParser(ParseState st, Parser parser) {
        this.st = st;
        this.parser = parser;
    }

    Expr parseCall(Token name) {
        List<Expr> args = new ArrayList<>();
        int end = parseCallBody(args);
        Functions.Function fn = Functions.get(name.text());
        if (fn == null) {
            throw st.error(name, "unknown function with name " + GoStrings.quote(name.text()));
        }
        return st.track(new Expr.Call(fn.name(), List.copyOf(args), fn.returnType(), ParseState.span(name.pos(), end)));
    }

    /** {@code ( expr, ... )}; returns the end of the closing parenthesis. */
    private int parseCallBody(List<Expr> args) {
        st.advance();
        if (st.peek().type() == TokenType.RIGHT_PAREN) {
            return st.advance().end();
        }
        while (true) {
            args.add(parser.parseExpr(0));
            if (st.peek().type() == TokenType.COMMA) {
                Token comma = st.advance();
                if (!Parser.canStartExpr(st.peek().type())) {
                    throw st.error(comma, "trailing commas not allowed in function call args");
                }
            } else if (st.peek().type() == TokenType.RIGHT_PAREN) {
                return st.advance().end();
            } else {
                throw st.unexpected("", "");
            }
        }
    }

    Expr parseAggregate(Token opTok) {
        st.enterAggregation();
        Expr e = parseAggregateBody(opTok);
        st.leaveAggregation();
        return e;
    }

    private Expr parseAggregateBody(Token opTok) {
        AggregateOp op = AggregateOp.valueOf(opTok.type().name());
        List<String> grouping = List.of();
        boolean without = false;
        boolean modifierFirst = false;
        if (st.peek().type() == TokenType.BY || st.peek().type() == TokenType.WITHOUT) {
            without = st.advance().type() == TokenType.WITHOUT;
            grouping = parseGroupingLabels();
            modifierFirst = true;
            if (st.peek().type() != TokenType.LEFT_PAREN) {
                throw st.unexpected("aggregation", "");
            }
        }
        List<Expr> args = new ArrayList<>();
        int end = parseCallBody(args);
        if (!modifierFirst && (st.peek().type() == TokenType.BY || st.peek().type() == TokenType.WITHOUT)) {
            without = st.advance().type() == TokenType.WITHOUT;
            grouping = parseGroupingLabels();
            end = lastGroupingEnd;
        }
        PosRange pos = ParseState.span(opTok.pos(), end);
        if (args.isEmpty()) {
            throw st.error(pos, "no arguments for aggregate expression provided");
        }
        int desired = op.hasParameter() ? 2 : 1;
        if (args.size() != desired) {
            throw st.error(pos, "wrong number of arguments for aggregate expression provided, expected " + desired
                    + ", got " + args.size());
        }
        Expr param = op.hasParameter() ? args.get(0) : null;
        return st.track(new Expr.Aggregate(op, args.get(desired - 1), param, grouping, without, pos));
    }

    /** {@code ( label, ... )} after by/without/on/ignoring/group_left/group_right. */
    List<String> parseGroupingLabels() {
        if (st.peek().type() != TokenType.LEFT_PAREN) {
            throw st.unexpected("grouping opts", "\"(\"");
        }
        st.advance();
        List<String> labels = new ArrayList<>();
        if (st.peek().type() == TokenType.RIGHT_PAREN) {
            lastGroupingEnd = st.advance().end();
            return List.of();
        }
        while (true) {
            if (st.peek().type() == TokenType.STRING) {
                Token t = st.advance();
                if (t.value().isEmpty()) {
                    throw st.error(t, "invalid label name for grouping: " + GoStrings.quote(t.value()));
                }
                labels.add(t.value());
            } else if (st.peek().type().isMaybeLabel()) {
                labels.add(st.advance().text());
            } else {
                throw st.unexpected("grouping opts", "label");
            }
            if (st.peek().type() == TokenType.COMMA) {
                st.advance();
                if (st.peek().type() == TokenType.RIGHT_PAREN) {
                    break;
                }
            } else if (st.peek().type() != TokenType.RIGHT_PAREN) {
                throw st.unexpected("grouping opts", "\",\" or \")\"");
            } else {
                break;
            }
        }
        lastGroupingEnd = st.advance().end();
        return Collections.unmodifiableList(labels);
    }
}
