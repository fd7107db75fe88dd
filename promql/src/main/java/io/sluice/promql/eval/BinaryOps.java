package io.sluice.promql.eval;

import io.sluice.promql.PromQLException;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.eval.kernels.MathKernels;
import io.sluice.promql.labels.Labels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Binary operators. Vector/scalar streams the vector side; vector/vector materialises both sides, indexes
 * the "one" side by matching signature and checks the matching rules per step, as Prometheus does.
 */
final class BinaryOps {
    private BinaryOps() {
    }

    static Evaluator.Val eval(Evaluator ev, Expr.Binary b, Grid g) {
        ValueType lt = b.lhs().type();
        ValueType rt = b.rhs().type();
        BinaryOp op = b.op();
        if (lt == ValueType.SCALAR && rt == ValueType.SCALAR) {
            double[] l = ev.evalScalar(b.lhs(), g);
            double[] r = ev.evalScalar(b.rhs(), g);
            double[] o = new double[g.n()];
            for (int i = 0; i < o.length; i++) {
                o[i] = scalarOp(op, l[i], r[i]);
            }
            return new Evaluator.ScalarVal(o);
        }
        if (lt == ValueType.VECTOR && rt == ValueType.SCALAR) {
            RowSource src = ev.evalVector(b.lhs(), g);
            double[] s = ev.evalScalar(b.rhs(), g);
            return vectorScalar(src, s, op, false, b.returnBool());
        }
        if (lt == ValueType.SCALAR && rt == ValueType.VECTOR) {
            double[] s = ev.evalScalar(b.lhs(), g);
            RowSource src = ev.evalVector(b.rhs(), g);
            return vectorScalar(src, s, op, true, b.returnBool());
        }
        Expr.VectorMatching vm = b.matching() != null ? b.matching()
                : new Expr.VectorMatching(op.isSetOperator() ? Expr.Cardinality.MANY_TO_MANY : Expr.Cardinality.ONE_TO_ONE,
                List.of(), false, List.of());
        if (op.isSetOperator()) {
            return new Evaluator.VecVal(setOp(ev, op, b, vm, g));
        }
        // The "one" side is held, indexed by signature; the "many" side streams past it.
        boolean oneToMany = vm.card() == Expr.Cardinality.ONE_TO_MANY;
        List<Row> one;
        RowSource many;
        if (oneToMany) {
            one = ev.materialize(ev.evalVector(b.lhs(), g));
            many = ev.evalVector(b.rhs(), g);
        } else {
            RowSource lhs = ev.evalVector(b.lhs(), g);
            one = ev.materialize(ev.evalVector(b.rhs(), g));
            many = lhs;
        }
        return new Evaluator.VecVal(RowSource.of(vectorVector(ev, op, many, one, vm, b.returnBool(), g.n())));
    }

    static double scalarOp(BinaryOp op, double l, double r) {
        return switch (op) {
            case ADD -> l + r;
            case SUB -> l - r;
            case MUL -> l * r;
            case DIV -> l / r;
            case POW -> MathKernels.pow(l, r);
            case MOD -> MathKernels.mod(l, r);
            case ATAN2 -> Math.atan2(l, r);
            case EQL -> l == r ? 1 : 0;
            case NEQ -> l != r ? 1 : 0;
            case GTR -> l > r ? 1 : 0;
            case LSS -> l < r ? 1 : 0;
            case GTE -> l >= r ? 1 : 0;
            case LTE -> l <= r ? 1 : 0;
            default -> throw new IllegalArgumentException("operator " + op + " not allowed for scalar operations");
        };
    }

    static boolean compare(BinaryOp op, double l, double r) {
        return switch (op) {
            case EQL -> l == r;
            case NEQ -> l != r;
            case GTR -> l > r;
            case LSS -> l < r;
            case GTE -> l >= r;
            case LTE -> l <= r;
            default -> throw new IllegalArgumentException();
        };
    }

    static boolean changesSchema(BinaryOp op) {
        return switch (op) {
            case ADD, SUB, MUL, DIV, POW, MOD, ATAN2 -> true;
            default -> false;
        };
    }

    private static Evaluator.Val vectorScalar(RowSource src, double[] s, BinaryOp op, boolean swap, boolean bool) {
        boolean cmp = op.isComparison();
        return new Evaluator.VecVal(() -> {
            while (true) {
                Row r = src.next();
                if (r == null) {
                    return null;
                }
                boolean any = false;
                for (int i = 0; i < r.v.length; i++) {
                    double v = r.v[i];
                    if (Row.absent(v)) {
                        continue;
                    }
                    double l = swap ? s[i] : v;
                    double rr = swap ? v : s[i];
                    double out;
                    if (cmp) {
                        boolean keep = compare(op, l, rr);
                        if (bool) {
                            out = keep ? 1 : 0;
                        } else {
                            out = keep ? v : Row.ABSENT;
                        }
                    } else {
                        out = scalarOp(op, l, rr);
                    }
                    r.v[i] = out;
                    any |= !Row.absent(out);
                }
                if (changesSchema(op) || bool) {
                    r.dropName = true;
                }
                if (any) {
                    return r;
                }
            }
        });
    }

    /** The matching signature: the {@code on} labels' values, or every label but the {@code ignoring} ones and the name. */
    static Labels signature(Labels l, Expr.VectorMatching vm) {
        if (vm.on()) {
            return l.only(vm.labels());
        }
        List<String> drop = new ArrayList<>(vm.labels());
        drop.add(Labels.METRIC_NAME);
        return l.without(drop);
    }

    /**
     * and/unless stream the left side against the right side's signatures present per step; or streams the
     * left side, then the right side's points whose signature the left side lacks at that step.
     */
    private static RowSource setOp(Evaluator ev, BinaryOp op, Expr.Binary b, Expr.VectorMatching vm, Grid g) {
        int n = g.n();
        if (op == BinaryOp.OR) {
            RowSource lhs = ev.evalVector(b.lhs(), g);
            Map<Labels, boolean[]> leftPresent = new HashMap<>();
            return new RowSource() {
                RowSource rhs;

                @Override
                public Row next() {
                    if (rhs == null) {
                        Row l = lhs.next();
                        if (l != null) {
                            mark(leftPresent, signature(l.labels, vm), l, n);
                            return l;
                        }
                        rhs = ev.evalVector(b.rhs(), g);
                    }
                    for (Row r = rhs.next(); r != null; r = rhs.next()) {
                        boolean[] p = leftPresent.get(signature(r.labels, vm));
                        boolean any = false;
                        for (int i = 0; i < n; i++) {
                            if (Row.absent(r.v[i])) {
                                continue;
                            }
                            if (p != null && p[i]) {
                                r.v[i] = Row.ABSENT;
                            } else {
                                any = true;
                            }
                        }
                        if (any) {
                            return r;
                        }
                    }
                    return null;
                }
            };
        }
        boolean and = op == BinaryOp.AND;
        RowSource lhs = ev.evalVector(b.lhs(), g);
        Map<Labels, boolean[]> rightPresent = new HashMap<>();
        RowSource rhs = ev.evalVector(b.rhs(), g);
        for (Row r = rhs.next(); r != null; r = rhs.next()) {
            mark(rightPresent, signature(r.labels, vm), r, n);
        }
        return () -> {
            for (Row l = lhs.next(); l != null; l = lhs.next()) {
                boolean[] p = rightPresent.get(signature(l.labels, vm));
                if (p == null && and) {
                    continue;
                }
                boolean any = false;
                for (int i = 0; i < n; i++) {
                    if (Row.absent(l.v[i])) {
                        continue;
                    }
                    boolean matched = p != null && p[i];
                    if (matched != and) {
                        l.v[i] = Row.ABSENT;
                    } else {
                        any = true;
                    }
                }
                if (any) {
                    return l;
                }
            }
            return null;
        };
    }

    private static void mark(Map<Labels, boolean[]> present, Labels sig, Row r, int n) {
        boolean[] p = present.computeIfAbsent(sig, k -> new boolean[n]);
        for (int i = 0; i < n; i++) {
            if (!Row.absent(r.v[i])) {
                p[i] = true;
            }
        }
    }

    /** Rows with the same labels become one; the same labels at the same step is an error. */
    static List<Row> mergeByLabels(List<Row> rows, int n) {
        Map<Labels, Row> m = new LinkedHashMap<>();
        boolean dup = false;
        for (Row r : rows) {
            Row prev = m.putIfAbsent(r.labels, r);
            if (prev != null) {
                dup = true;
                for (int i = 0; i < n; i++) {
                    if (!Row.absent(r.v[i])) {
                        if (!Row.absent(prev.v[i])) {
                            throw Evaluator.execError("vector cannot contain metrics with the same labelset");
                        }
                        prev.v[i] = r.v[i];
                    }
                }
            }
        }
        return dup ? new ArrayList<>(m.values()) : rows;
    }

    private static List<Row> vectorVector(Evaluator ev, BinaryOp op, RowSource many, List<Row> one,
                                          Expr.VectorMatching vm, boolean bool, int n) {
        if (one.isEmpty()) {
            // Nothing matches, but the other side is evaluated all the same (its errors are the answer's).
            for (Row m = many.next(); m != null; m = many.next()) {
                ev.check();
            }
            return List.of();
        }
        boolean oneToMany = vm.card() == Expr.Cardinality.ONE_TO_MANY;
        Map<Labels, List<Row>> oneIndex = new HashMap<>();
        for (Row r : one) {
            oneIndex.computeIfAbsent(signature(r.labels, vm), k -> new ArrayList<>()).add(r);
        }
        // The "one" side must hold at most one series per signature at each step where the other side
        // has a sample (Prometheus matches nothing, so checks nothing, at a step where either side is empty).
        boolean[] dupAt = duplicateSteps(oneIndex, n);
        Matching matching = new Matching(ev, op, oneIndex, vm, bool, n);
        for (Row m = many.next(); m != null; m = many.next()) {
            if (dupAt != null) {
                for (int i = 0; i < n; i++) {
                    if (dupAt[i] && !Row.absent(m.v[i])) {
                        throw duplicateError(one, vm, i, oneToMany);
                    }
                }
            }
            matching.add(m);
        }
        return new ArrayList<>(matching.out.values());
    }

    /**
     * Matches the "many" side's rows against the indexed "one" side, a row per {@link #add} call: the
     * JIT compiles the per-row work apart from the loop that pulls the rows (whose inlined row sources
     * change from query to query), so neither recompiles the other.
     */
    private static final class Matching {
        private final Evaluator ev;
        private final BinaryOp op;
        private final Map<Labels, List<Row>> oneIndex;
        private final Expr.VectorMatching vm;
        private final boolean bool;
        private final int n;
        private final boolean oneToMany;
        private final boolean oneToOne;
        private final boolean cmp;
        private final Map<Labels, boolean[]> matchedOneToOne = new HashMap<>();
        private final Map<Labels, Map<Labels, boolean[]>> matchedManyToOne = new HashMap<>();
        final Map<Labels, Row> out = new LinkedHashMap<>();

        Matching(Evaluator ev, BinaryOp op, Map<Labels, List<Row>> oneIndex, Expr.VectorMatching vm, boolean bool, int n) {
            this.ev = ev;
            this.op = op;
            this.oneIndex = oneIndex;
            this.vm = vm;
            this.bool = bool;
            this.n = n;
            oneToMany = vm.card() == Expr.Cardinality.ONE_TO_MANY;
            oneToOne = vm.card() == Expr.Cardinality.ONE_TO_ONE;
            cmp = op.isComparison();
        }

        void add(Row m) {
            Labels sig = signature(m.labels, vm);
            List<Row> cands = oneIndex.get(sig);
            if (cands == null) {
                return;
            }
            ev.check();
            // Per candidate of this row, what does not change from step to step: the result's labels,
            // its matched-steps array and its output row (each looked up once, when first needed).
            int nc = cands.size();
            Labels[] rls = new Labels[nc];
            boolean[][] seens = new boolean[nc][];
            Row[] ress = new Row[nc];
            for (int i = 0; i < n; i++) {
                double mv = m.v[i];
                if (Row.absent(mv)) {
                    continue;
                }
                int ci = 0;
                while (ci < nc && Row.absent(cands.get(ci).v[i])) {
                    ci++;
                }
                if (ci == nc) {
                    continue;
                }
                Row o = cands.get(ci);
                double lv = oneToMany ? o.v[i] : mv;
                double rv = oneToMany ? mv : o.v[i];
                double value;
                boolean keep = true;
                if (cmp) {
                    keep = compare(op, lv, rv);
                    value = bool ? (keep ? 1 : 0) : lv;
                } else {
                    value = scalarOp(op, lv, rv);
                }
                Labels rl = rls[ci];
                if (rl == null) {
                    rl = resultLabels(m, o, op, vm);
                    rls[ci] = rl;
                }
                boolean[] seen = seens[ci];
                if (seen == null) {
                    Labels key = rl;
                    seen = oneToOne ? matchedOneToOne.computeIfAbsent(sig, k -> new boolean[n])
                            : matchedManyToOne.computeIfAbsent(sig, k -> new HashMap<>()).computeIfAbsent(key, k -> new boolean[n]);
                    seens[ci] = seen;
                }
                if (seen[i]) {
                    throw Evaluator.execError(oneToOne
                            ? "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)"
                            : "multiple matches for labels: grouping labels must ensure unique matches");
                }
                seen[i] = true;
                if (!keep && !bool) {
                    continue;
                }
                Row res = ress[ci];
                if (res == null) {
                    res = out.get(rl);
                    if (res == null) {
                        res = new Row(rl, bool, Row.absentArray(n));
                        out.put(rl, res);
                    }
                    ress[ci] = res;
                }
                if (!Row.absent(res.v[i])) {
                    throw Evaluator.execError("vector cannot contain metrics with the same labelset");
                }
                res.v[i] = value;
            }
        }
    }

    /** The steps at which two series of one signature both have a sample; null if there are none. */
    private static boolean[] duplicateSteps(Map<Labels, List<Row>> oneIndex, int n) {
        boolean[] dupAt = null;
        for (List<Row> rs : oneIndex.values()) {
            if (rs.size() < 2) {
                continue;
            }
            for (int i = 0; i < n; i++) {
                int present = 0;
                for (Row r : rs) {
                    if (!Row.absent(r.v[i]) && ++present == 2) {
                        if (dupAt == null) {
                            dupAt = new boolean[n];
                        }
                        dupAt[i] = true;
                        break;
                    }
                }
            }
        }
        return dupAt;
    }

    /** Prometheus' error for step {@code i}: the first series, in the "one" side's order, whose signature came before. */
    private static PromQLException duplicateError(List<Row> one, Expr.VectorMatching vm, int i, boolean oneToMany) {
        Map<Labels, Row> seen = new HashMap<>();
        for (Row r : one) {
            if (Row.absent(r.v[i])) {
                continue;
            }
            Labels sig = signature(r.labels, vm);
            Row first = seen.putIfAbsent(sig, r);
            if (first != null) {
                return Evaluator.execError("found duplicate series for the match group " + goLabels(sig)
                        + " on the " + (oneToMany ? "left" : "right") + " hand-side of the operation: ["
                        + goLabels(r.labels) + ", " + goLabels(first.labels)
                        + "];many-to-many matching not allowed: matching labels must be unique on one side");
            }
        }
        throw new IllegalStateException("no duplicate at step " + i);
    }

    /**
     * The labels of a match's result: the "many" side's, without the name when the operator changes it,
     * cut to the matching labels for one-to-one, with the {@code group_left}/{@code group_right} labels
     * of the "one" side. Array operations on the sorted labels, no map.
     */
    private static Labels resultLabels(Row many, Row one, BinaryOp op, Expr.VectorMatching vm) {
        Labels l = changesSchema(op) ? many.labels.withoutMetadata() : many.labels;
        if (vm.card() == Expr.Cardinality.ONE_TO_ONE) {
            l = vm.on() ? l.only(vm.labels()) : l.without(vm.labels());
        }
        for (String name : vm.include()) {
            l = l.with(name, one.labels.get(name));
        }
        return l;
    }

    /** Go's labels.String(): {a="b", c="d"} with every label inside the braces. */
    static String goLabels(Labels l) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < l.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(l.name(i)).append("=\"").append(l.value(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('}').toString();
    }
}
