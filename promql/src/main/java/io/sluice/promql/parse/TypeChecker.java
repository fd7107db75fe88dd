package io.sluice.promql.parse;

import io.sluice.promql.ParseException;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Expr.Cardinality;
import io.sluice.promql.ast.Functions;
import io.sluice.promql.ast.PosRange;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import java.util.List;
import java.util.Map;

/**
 * Prometheus' type checks over a parsed tree, depth first, after the syntax (the first error wins, with
 * Prometheus' text and position): operand and argument types, vector matching, selectors that match
 * everything, function arity.
 */
final class TypeChecker {
    /** Vector matching as written (the tree keeps it only between two vectors). */
    record Matching(Cardinality card, List<String> labels, boolean on, List<String> include, boolean returnBool) {
    }

    private final String query;
    private final Map<Expr.Binary, Matching> matchings;

    TypeChecker(String query, Map<Expr.Binary, Matching> matchings) {
        this.query = query;
        this.matchings = matchings;
    }

    private ParseException error(PosRange pos, String detail) {
        return Errors.at(query, pos.start(), pos.end(), detail);
    }

    private void expectType(Expr e, ValueType want, String context) {
        ValueType t = check(e);
        if (t != want) {
            throw error(e.pos(), "expected type " + want.documentedName() + " in " + context + ", got " + t.documentedName());
        }
    }

    /** Prometheus' type checks, depth first; returns the node's type. */
    ValueType check(Expr node) {
        switch (node) {
            case Expr.Aggregate a -> {
                expectType(a.expr(), ValueType.VECTOR, "aggregation expression");
                switch (a.op()) {
                    case TOPK, BOTTOMK, QUANTILE, LIMITK, LIMIT_RATIO ->
                            expectType(a.param(), ValueType.SCALAR, "aggregation parameter");
                    case COUNT_VALUES -> expectType(a.param(), ValueType.STRING, "aggregation parameter");
                    default -> {
                    }
                }
            }
            case Expr.Binary b -> checkBinary(b);
            case Expr.Call c -> checkCall(c);
            case Expr.Paren p -> check(p.expr());
            case Expr.Unary u -> {
                ValueType t = check(u.expr());
                if (t != ValueType.SCALAR && t != ValueType.VECTOR) {
                    throw error(u.pos(), "unary expression only allowed on expressions of type scalar or instant vector, got "
                            + GoStrings.quote(t.documentedName()));
                }
            }
            case Expr.Subquery s -> {
                ValueType t = check(s.expr());
                if (t != ValueType.VECTOR) {
                    throw error(s.pos(), "subquery is only allowed on instant vector, got " + t.apiName() + " instead");
                }
            }
            case Expr.MatrixSelector m -> check(m.selector());
            case Expr.VectorSelector vs -> checkSelector(vs);
            case Expr.NumberLiteral n -> {
            }
            case Expr.StringLiteral s -> {
            }
        }
        return node.type();
    }

    private void checkSelector(Expr.VectorSelector vs) {
        List<LabelMatcher> ms = vs.matchers();
        if (vs.name() != null) {
            for (int i = 0; i < ms.size() - 1; i++) {
                if (ms.get(i).name().equals(Labels.METRIC_NAME)) {
                    throw error(vs.pos(), "metric name must not be set twice: " + GoStrings.quote(vs.name()) + " or "
                            + GoStrings.quote(ms.get(i).value()));
                }
            }
            return;
        }
        for (LabelMatcher m : ms) {
            if (!m.matchesEmpty()) {
                return;
            }
        }
        throw error(vs.pos(), "vector selector must contain at least one non-empty matcher");
    }

    private void checkBinary(Expr.Binary b) {
        ValueType lt = check(b.lhs());
        ValueType rt = check(b.rhs());
        Matching m = matchings.get(b);
        BinaryOp op = b.op();
        if (m.returnBool() && !op.isComparison()) {
            throw error(opRange(b), "bool modifier can only be used on comparison operators");
        }
        if (op.isComparison() && !m.returnBool() && lt == ValueType.SCALAR && rt == ValueType.SCALAR) {
            throw error(opRange(b), "comparisons between scalars must use BOOL modifier");
        }
        if (m.on()) {
            for (String l1 : m.labels()) {
                if (m.include().contains(l1)) {
                    throw error(opRange(b), "label " + GoStrings.quote(l1) + " must not occur in ON and GROUP clause at once");
                }
            }
        }
        if (lt != ValueType.SCALAR && lt != ValueType.VECTOR) {
            throw error(b.lhs().pos(), "binary expression must contain only scalar and instant vector types");
        }
        if (rt != ValueType.SCALAR && rt != ValueType.VECTOR) {
            throw error(b.rhs().pos(), "binary expression must contain only scalar and instant vector types");
        }
        if (lt != ValueType.VECTOR || rt != ValueType.VECTOR) {
            if (!m.labels().isEmpty()) {
                throw error(b.pos(), "vector matching only allowed between instant vectors");
            }
        } else if (op.isSetOperator()) {
            if (m.card() == Cardinality.ONE_TO_MANY || m.card() == Cardinality.MANY_TO_ONE) {
                throw error(b.pos(), "no grouping allowed for " + GoStrings.quote(op.symbol()) + " operation");
            }
        }
        if ((lt == ValueType.SCALAR || rt == ValueType.SCALAR) && op.isSetOperator()) {
            throw error(b.pos(), "set operator " + GoStrings.quote(op.symbol()) + " not allowed in binary scalar expression");
        }
    }

    /** The operator's own range: from the end of the left side to the start of the right, spaces trimmed. */
    private PosRange opRange(Expr.Binary b) {
        int s = b.lhs().pos().end();
        while (s < query.length() && Lexer.isSpace(query.charAt(s))) {
            s++;
        }
        int e = b.rhs().pos().start() - 1;
        while (e > s && Lexer.isSpace(query.charAt(e))) {
            e--;
        }
        return new PosRange(s, e);
    }

    private void checkCall(Expr.Call c) {
        Functions.Function fn = Functions.get(c.function());
        int n = c.args().size();
        int nargs = fn.argTypes().size();
        String q = GoStrings.quote(fn.name());
        if (fn.variadic() == 0) {
            if (nargs != n) {
                throw error(c.pos(), "expected " + nargs + " argument(s) in call to " + q + ", got " + n);
            }
        } else {
            int na = nargs - 1;
            if (na > n) {
                throw error(c.pos(), "expected at least " + na + " argument(s) in call to " + q + ", got " + n);
            } else if (fn.variadic() > 0 && na + fn.variadic() < n) {
                throw error(c.pos(), "expected at most " + (na + fn.variadic()) + " argument(s) in call to " + q + ", got " + n);
            }
        }
        if (fn.name().equals("info") && n > 1) {
            Expr second = c.args().get(1);
            if (second.type() != ValueType.VECTOR) {
                throw error(c.pos(), "expected type instant vector in call to function " + q + ", got "
                        + second.type().documentedName());
            }
            if (second instanceof Expr.VectorSelector vs) {
                if (vs.name() != null) {
                    throw error(second.pos(), "expected label selectors only, got vector selector instead");
                }
            } else {
                throw error(second.pos(), "expected label selectors only");
            }
        }
        for (int i = 0; i < n; i++) {
            if (i >= nargs && fn.variadic() == 0) {
                break;
            }
            Expr arg = c.args().get(i);
            ValueType want = fn.argType(i);
            ValueType t = (fn.name().equals("info") && i == 1) ? arg.type() : check(arg);
            if (t != want) {
                throw error(arg.pos(), "expected type " + want.documentedName() + " in call to function " + q + ", got "
                        + t.documentedName());
            }
        }
    }
}
