package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Name removal without Prometheus' delayed-name-removal feature (its server's default): a function or
 * operator that drops the metric name drops it from its own output at once, so what follows sees no
 * name ({@code sum by (__name__)}, {@code label_replace} from {@code __name__}). Series of that output
 * which then share their labels are an error where Prometheus raises it: at the same step, or for a
 * function of a range vector anywhere in the query's range. The metric's {@code __type__} and
 * {@code __unit__} labels go with its name, as in Prometheus. With the feature on this is a no-op and the
 * evaluator drops names when the query ends.
 */
final class ImmediateNameRemoval {
    private ImmediateNameRemoval() {
    }

    /**
     * {@code v}, the value of {@code e}, with the names its rows drop removed now; {@code anyStep}: a
     * clash at different steps counts too.
     */
    static Evaluator.Val apply(Evaluator ev, Expr e, Evaluator.Val v, boolean anyStep, int n) {
        if (ev.delayedNameRemoval() || !(v instanceof Evaluator.VecVal vv)) {
            return v;
        }
        RowSource src = vv.src();
        // Of one metric name, each output stems from one input series: without the name they stay distinct,
        // unless they differ only in __type__ or __unit__, which go with the name. Rows are checked from the
        // first that carries one of those on (a clash with an earlier row without them goes unnoticed).
        boolean[] check = {!operandsHaveOneName(e)};
        // Steps at which each renamed output has a value (only rows that lost their name can clash).
        Map<Labels, long[]> seen = new HashMap<>();
        return new Evaluator.VecVal(() -> {
            Row r = src.next();
            if (r == null || !r.dropName) {
                return r;
            }
            Labels dropped = r.labels.withoutMetadata();
            check[0] |= dropped.size() < r.labels.size() - (r.labels.has(Labels.METRIC_NAME) ? 1 : 0);
            r.labels = dropped;
            r.dropName = false;
            if (!check[0]) {
                return r;
            }
            long[] steps = new long[anyStep ? 1 : (n + 63) >>> 6];
            for (int i = 0; i < n; i++) {
                if (!Row.absent(r.v[i])) {
                    steps[anyStep ? 0 : i >>> 6] |= anyStep ? 1 : 1L << i;
                }
            }
            long[] prev = seen.putIfAbsent(r.labels, steps);
            if (prev != null) {
                for (int w = 0; w < steps.length; w++) {
                    if (anyStep || (prev[w] & steps[w]) != 0) {
                        throw Evaluator.execError("vector cannot contain metrics with the same labelset");
                    }
                    prev[w] |= steps[w];
                }
            }
            return r;
        });
    }

    /** Whether every series operand of {@code e} is a selector of one metric name ({@code x}, {@code x[5m]}). */
    private static boolean operandsHaveOneName(Expr e) {
        List<Expr> operands = switch (e) {
            case Expr.Call c -> c.args();
            case Expr.Binary b -> List.of(b.lhs(), b.rhs());
            case Expr.Unary u -> List.of(u.expr());
            default -> List.of(e);
        };
        for (Expr o : operands) {
            Expr x = Functions.unparen(o);
            if (x instanceof Expr.MatrixSelector ms) {
                x = ms.selector();
            }
            boolean series = x.type() == ValueType.VECTOR || x.type() == ValueType.MATRIX;
            if (series && !(x instanceof Expr.VectorSelector vs && vs.name() != null)) {
                return false;
            }
        }
        return true;
    }
}
