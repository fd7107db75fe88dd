package io.sluice.promql.eval;

import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.eval.kernels.Quantiles;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.labels.LabelsHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Aggregations. sum/avg/count/min/max/group/stddev/stdvar stream: each input row is folded into its
 * group's per-step accumulators and not kept; topk/bottomk keep per group and step a heap of at most k
 * (series, value) pairs, limitk/limit_ratio the pairs they select. quantile and count_values keep the
 * values they need.
 */
final class Aggregations {
    private Aggregations() {
    }

    /** Per-group accumulators over all steps. */
    private static final class Acc {
        final Labels labels;
        boolean dropName;
        final double[] value;
        final double[] mean;
        final double[] comp;
        final double[] count;
        final boolean[] seen;
        final boolean[] incremental;
        List<double[]> rows; // quantile
        /** Kahan summation's compensation, passed in and out of {@link FloatOps#kahanInc}. */
        private final double[] kahan = new double[1];

        Acc(Labels labels, int n, AggregateOp op) {
            this.labels = labels;
            value = new double[n];
            seen = new boolean[n];
            count = new double[n];
            boolean needMean = op == AggregateOp.AVG || op == AggregateOp.STDDEV || op == AggregateOp.STDVAR;
            mean = needMean ? new double[n] : null;
            comp = op == AggregateOp.SUM || op == AggregateOp.AVG ? new double[n] : null;
            incremental = op == AggregateOp.AVG ? new boolean[n] : null;
            if (op == AggregateOp.QUANTILE) {
                rows = new ArrayList<>();
            }
        }

        /**
         * Folds one row into this group's accumulators. A method of its own, called per row: the JIT
         * compiles it apart from the query's row loop, so a new operator recompiles this, not the loop.
         */
        void add(Row r, AggregateOp op, int n) {
            double[] v = r.v;
            double[] c = kahan;
            for (int i = 0; i < n; i++) {
                double f = v[i];
                if (Row.absent(f)) {
                    continue;
                }
                if (!seen[i]) {
                    seen[i] = true;
                    count[i] = 1;
                    value[i] = f;
                    if (mean != null) {
                        mean[i] = f;
                    }
                    switch (op) {
                        case STDDEV, STDVAR -> {
                            value[i] = (Double.isNaN(f) || Double.isInfinite(f)) ? Double.NaN : 0;
                        }
                        case GROUP -> value[i] = 1;
                        default -> {
                        }
                    }
                    if (r.dropName && !dropName) {
                        dropName = true;
                    }
                    continue;
                }
                if (r.dropName) {
                    dropName = true;
                }
                switch (op) {
                    case SUM -> {
                        c[0] = comp[i];
                        value[i] = FloatOps.kahanInc(f, value[i], c);
                        comp[i] = c[0];
                    }
                    case AVG -> {
                        count[i]++;
                        double cnt = count[i];
                        if (!incremental[i]) {
                            c[0] = comp[i];
                            double nv = FloatOps.kahanInc(f, value[i], c);
                            if (!Double.isInfinite(nv)) {
                                value[i] = nv;
                                comp[i] = c[0];
                                break;
                            }
                            incremental[i] = true;
                            mean[i] = value[i] / (cnt - 1);
                            comp[i] /= cnt - 1;
                        }
                        double q = (cnt - 1) / cnt;
                        c[0] = q * comp[i];
                        mean[i] = FloatOps.kahanInc(f / cnt, q * mean[i], c);
                        comp[i] = c[0];
                    }
                    case MAX -> {
                        if (value[i] < f || Double.isNaN(value[i])) {
                            value[i] = f;
                        }
                    }
                    case MIN -> {
                        if (value[i] > f || Double.isNaN(value[i])) {
                            value[i] = f;
                        }
                    }
                    case COUNT -> count[i]++;
                    case STDDEV, STDVAR -> {
                        count[i]++;
                        double delta = f - mean[i];
                        mean[i] += delta / count[i];
                        value[i] += delta * (f - mean[i]);
                    }
                    default -> {
                    }
                }
            }
        }
    }

    static Evaluator.Val eval(Evaluator ev, Expr.Aggregate a, Grid g) {
        AggregateOp op = a.op();
        List<String> grouping = new ArrayList<>(new TreeSet<>(a.grouping()));
        boolean without = a.without();
        int n = g.n();
        switch (op) {
            case COUNT_VALUES:
                return countValues(ev, a, g, grouping);
            case TOPK, BOTTOMK, LIMITK, LIMIT_RATIO:
                return kAggregation(ev, a, g, grouping);
            default:
                break;
        }
        double[] param = null;
        if (op == AggregateOp.QUANTILE) {
            param = ev.evalScalar(a.param(), g);
            double mx = Double.NEGATIVE_INFINITY;
            double mn = Double.POSITIVE_INFINITY;
            boolean nan = false;
            for (double q : param) {
                nan |= Double.isNaN(q);
                mx = Math.max(mx, q);
                mn = Math.min(mn, q);
            }
            if (nan) {
                ev.warn("PromQL warning: quantile value should be between 0 and 1, got NaN", a.param());
            }
            if (mx > 1) {
                ev.warn("PromQL warning: quantile value should be between 0 and 1, got " + FloatOps.formatG(mx), a.param());
            }
            if (mn < 0) {
                ev.warn("PromQL warning: quantile value should be between 0 and 1, got " + FloatOps.formatG(mn), a.param());
            }
        }
        // Grouped by some labels, the rows need no others (without: every label but some).
        RowSource src = without ? ev.evalVector(a.expr(), g) : ev.evalVectorReading(a.expr(), g, grouping);
        Map<Object, Acc> groups = new HashMap<>();
        List<Acc> order = new ArrayList<>();
        for (Row r = src.next(); r != null; r = src.next()) {
            Object key = groupKey(r.labels, grouping, without);
            Acc acc = groups.get(key);
            if (acc == null) {
                acc = new Acc(groupLabels(r.labels, grouping, without), n, op);
                groups.put(key, acc);
                order.add(acc);
                ev.addSamples(n);
            }
            if (op == AggregateOp.QUANTILE) {
                acc.rows.add(r.v.clone());
                ev.addSamples(r.count());
            }
            acc.add(r, op, n);
        }
        List<Row> out = new ArrayList<>(order.size());
        double[] scratch = new double[16];
        for (Acc acc : order) {
            double[] res = Row.absentArray(n);
            boolean any = false;
            for (int i = 0; i < n; i++) {
                if (!acc.seen[i]) {
                    continue;
                }
                any = true;
                res[i] = switch (op) {
                    case SUM -> acc.value[i] + acc.comp[i];
                    case AVG -> acc.incremental[i] ? acc.mean[i] + acc.comp[i]
                            : acc.value[i] / acc.count[i] + acc.comp[i] / acc.count[i];
                    case COUNT -> acc.count[i];
                    case STDVAR -> acc.value[i] / acc.count[i];
                    case STDDEV -> Math.sqrt(acc.value[i] / acc.count[i]);
                    case QUANTILE -> {
                        int k = 0;
                        if (scratch.length < acc.rows.size()) {
                            scratch = new double[acc.rows.size()];
                        }
                        for (double[] rv : acc.rows) {
                            if (!Row.absent(rv[i])) {
                                scratch[k++] = rv[i];
                            }
                        }
                        yield Quantiles.quantile(param[i], scratch, k);
                    }
                    default -> acc.value[i];
                };
            }
            if (any) {
                out.add(new Row(acc.labels, acc.dropName, res));
            }
        }
        return new Evaluator.VecVal(RowSource.of(out));
    }

    /** The grouping key: the values of the {@code by} labels, or the labels without the {@code without} ones and the name. */
    static Object groupKey(Labels l, List<String> grouping, boolean without) {
        if (without) {
            List<String> drop = new ArrayList<>(grouping);
            drop.add(Labels.METRIC_NAME);
            return l.without(drop);
        }
        if (grouping.isEmpty()) {
            return Labels.EMPTY;
        }
        String[] vals = new String[grouping.size()];
        for (int i = 0; i < vals.length; i++) {
            vals[i] = l.get(grouping.get(i));
        }
        return Arrays.asList(vals);
    }

    static Labels groupLabels(Labels l, List<String> grouping, boolean without) {
        if (without) {
            List<String> drop = new ArrayList<>(grouping);
            drop.add(Labels.METRIC_NAME);
            return l.without(drop);
        }
        if (grouping.isEmpty()) {
            return Labels.EMPTY;
        }
        return l.only(grouping);
    }

    private static Evaluator.Val countValues(Evaluator ev, Expr.Aggregate a, Grid g, List<String> grouping) {
        String valueLabel = ((Expr.StringLiteral) Functions.unparen(a.param())).value();
        if (!LabelFunctions.validLabelName(valueLabel)) {
            throw Evaluator.execError("invalid label name \"" + valueLabel + "\"");
        }
        List<String> grp = new ArrayList<>(grouping);
        if (!a.without()) {
            grp.add(valueLabel);
            grp = new ArrayList<>(new TreeSet<>(grp));
        }
        int n = g.n();
        RowSource src = ev.evalVector(a.expr(), g);
        Map<Object, Row> out = new java.util.LinkedHashMap<>();
        for (Row r = src.next(); r != null; r = src.next()) {
            for (int i = 0; i < n; i++) {
                if (Row.absent(r.v[i])) {
                    continue;
                }
                Labels m = r.labels.toBuilder().set(valueLabel, FloatOps.formatPlain(r.v[i])).build();
                Object key = groupKey(m, grp, a.without());
                Row o = out.get(key);
                if (o == null) {
                    o = new Row(groupLabels(m, grp, a.without()), false, Row.absentArray(n));
                    out.put(key, o);
                    ev.addSamples(n);
                }
                o.v[i] = Row.absent(o.v[i]) ? 1 : o.v[i] + 1;
            }
        }
        return new Evaluator.VecVal(RowSource.of(new ArrayList<>(out.values())));
    }

    private static Evaluator.Val kAggregation(Evaluator ev, Expr.Aggregate a, Grid g, List<String> grouping) {
        AggregateOp op = a.op();
        int n = g.n();
        double[] param = ev.evalScalar(a.param(), g);
        // Prometheus evaluates the input before it looks at the parameter: the input's errors come first.
        RowSource src = ev.evalVector(a.expr(), g);
        double mx = Double.NEGATIVE_INFINITY;
        double mn = Double.POSITIVE_INFINITY;
        boolean nan = false;
        for (double p : param) {
            nan |= Double.isNaN(p);
            if (!Double.isNaN(p)) {
                mx = Math.max(mx, p);
                mn = Math.min(mn, p);
            }
        }
        if (op == AggregateOp.LIMIT_RATIO) {
            if (!nan && mx == 0 && mn == 0) {
                return drained(ev, src);
            }
            drainIf(nan, ev, src);
            if (nan) {
                throw Evaluator.execError("Ratio value is NaN");
            }
            if (mx > 1) {
                ev.warn("PromQL warning: ratio value should be between -1 and 1, got " + FloatOps.formatG(mx) + ", capping to 1", a.param());
            }
            if (mn < -1) {
                ev.warn("PromQL warning: ratio value should be between -1 and 1, got " + FloatOps.formatG(mn) + ", capping to -1", a.param());
            }
        } else {
            if (!nan && mx < 1) {
                return drained(ev, src);
            }
            drainIf(nan || mn <= -9.223372036854775808e18 || mx >= 9.223372036854775808e18, ev, src);
            if (nan) {
                throw Evaluator.execError("Parameter value is NaN");
            }
            if (mn <= -9.223372036854775808e18) {
                throw Evaluator.execError("Scalar value " + FloatOps.formatG(mn) + " underflows int64");
            }
            if (mx >= 9.223372036854775808e18) {
                throw Evaluator.execError("Scalar value " + FloatOps.formatG(mx) + " overflows int64");
            }
        }
        // Streams the input: per group and step, the selected series so far (a bounded heap for
        // topk/bottomk), never the whole input.
        Map<Object, KGroup> groups = new HashMap<>();
        List<KGroup> order = new ArrayList<>();
        List<Labels> seriesLabels = new ArrayList<>();
        List<Boolean> seriesDrop = new ArrayList<>();
        boolean top = op == AggregateOp.TOPK;
        boolean heap = op == AggregateOp.TOPK || op == AggregateOp.BOTTOMK;
        for (Row r = src.next(); r != null; r = src.next()) {
            Object key = groupKey(r.labels, grouping, a.without());
            KGroup grp = groups.get(key);
            if (grp == null) {
                grp = new KGroup(n);
                groups.put(key, grp);
                order.add(grp);
            }
            int si = seriesLabels.size();
            grp.series++;
            boolean selectedAny = grp.add(r, si, op, param, top);
            // Labels only of series selected at some step (an index per series, a label set per candidate).
            seriesLabels.add(selectedAny ? r.labels : null);
            seriesDrop.add(r.dropName);
            ev.check();
        }
        Map<Integer, double[]> outV = new java.util.LinkedHashMap<>();
        List<Integer> instantOrder = new ArrayList<>();
        for (KGroup grp : order) {
            for (int i = 0; i < n; i++) {
                int sz = grp.size[i];
                if (sz == 0) {
                    continue;
                }
                int base = i * grp.cap;
                // limitk and limit_ratio answer in heap order, topk and bottomk best first, as Prometheus.
                int[] pos = heap ? grp.sortedBestFirst(i, top) : java.util.stream.IntStream.range(0, sz).toArray();
                for (int j = 0; j < sz; j++) {
                    int si = grp.idx[base + pos[j]];
                    outV.computeIfAbsent(si, x -> Row.absentArray(n))[i] = grp.vals[base + pos[j]];
                    if (n == 1) {
                        instantOrder.add(si);
                    }
                }
            }
        }
        List<Row> out = new ArrayList<>();
        if (n == 1) {
            for (int si : instantOrder) {
                out.add(new Row(seriesLabels.get(si), seriesDrop.get(si), outV.get(si)));
            }
        } else {
            List<Integer> ids = new ArrayList<>(outV.keySet());
            ids.sort(null);
            for (int si : ids) {
                out.add(new Row(seriesLabels.get(si), seriesDrop.get(si), outV.get(si)));
            }
        }
        return new Evaluator.VecVal(RowSource.of(out));
    }

    /**
     * One group of a k-aggregation: per step, up to {@code cap} selected (series index, value) pairs in
     * flat arrays; for topk/bottomk a heap with the worst selected value at the top. {@code cap} grows with
     * the group's series count (never beyond k), so a huge k costs no more than the input.
     */
    private static final class KGroup {
        final int n;
        int cap = 1;
        int series;
        double[] vals;
        int[] idx;
        final int[] size;

        KGroup(int n) {
            this.n = n;
            vals = new double[n];
            idx = new int[n];
            size = new int[n];
        }

        /**
         * Offers row {@code r} (series index {@code si}) at every step; true if it was selected at some.
         * A method of its own, called per row: the JIT compiles it apart from the row loop.
         */
        boolean add(Row r, int si, AggregateOp op, double[] param, boolean top) {
            boolean selectedAny = false;
            double offset = op == AggregateOp.LIMIT_RATIO ? LabelsHash.sampleOffset(r.labels) : 0;
            for (int i = 0; i < n; i++) {
                double f = r.v[i];
                if (Row.absent(f)) {
                    continue;
                }
                long k = (long) param[i];
                switch (op) {
                    case LIMIT_RATIO -> {
                        if (param[i] != 0 && ratioSelected(offset, Math.max(-1, Math.min(1, param[i])))) {
                            push(i, si, f, Long.MAX_VALUE, true);
                            selectedAny = true;
                        }
                    }
                    case LIMITK -> {
                        if (k >= 1 && size[i] < k) {
                            push(i, si, f, k, true);
                            selectedAny = true;
                        }
                    }
                    default -> {
                        if (k >= 1) {
                            selectedAny |= offer(i, si, f, k, top);
                        }
                    }
                }
            }
            return selectedAny;
        }

        private void ensure(long k) {
            int want = (int) Math.min(k, Math.max(1, series));
            if (want <= cap) {
                return;
            }
            int nc = (int) Math.min(Math.min(k, Integer.MAX_VALUE / Math.max(1, n) - 1), Math.max(want, (long) cap * 2));
            double[] nv = new double[n * nc];
            int[] ni = new int[n * nc];
            for (int i = 0; i < n; i++) {
                System.arraycopy(vals, i * cap, nv, i * nc, size[i]);
                System.arraycopy(idx, i * cap, ni, i * nc, size[i]);
            }
            vals = nv;
            idx = ni;
            cap = nc;
        }

        /**
         * Prometheus' heap order: {@code a} goes above {@code b} when it is NaN (even against a NaN) or
         * smaller (topk, limitk, limit_ratio) or larger (bottomk). The exact rule matters: it decides
         * which of equal values stay and the order limitk answers in.
         */
        private static boolean above(double a, double b, boolean top) {
            return Double.isNaN(a) || (top ? a < b : a > b);
        }

        /** Appends to the step's heap and sifts up (Go's {@code container/heap.Push}). */
        void push(int step, int si, double f, long k, boolean top) {
            ensure(k == Long.MAX_VALUE ? series : k);
            int base = step * cap;
            int c = size[step]++;
            vals[base + c] = f;
            idx[base + c] = si;
            while (c > 0) {
                int parent = (c - 1) / 2;
                if (!above(vals[base + c], vals[base + parent], top)) {
                    break;
                }
                swap(base + c, base + parent);
                c = parent;
            }
        }

        /** Offers a value for topk/bottomk; true when it was taken. */
        boolean offer(int step, int si, double f, long k, boolean top) {
            ensure(k);
            int base = step * cap;
            int sz = size[step];
            if (sz < Math.min(k, cap)) {
                push(step, si, f, k, top);
                return true;
            }
            double rootV = vals[base];
            boolean better = (top ? rootV < f : rootV > f) || (Double.isNaN(rootV) && !Double.isNaN(f));
            if (!better) {
                return false;
            }
            vals[base] = f;
            idx[base] = si;
            if (k > 1) {
                // sift down (Go's container/heap.Fix at the root)
                int c = 0;
                while (true) {
                    int l = 2 * c + 1;
                    if (l >= sz) {
                        break;
                    }
                    int w = l;
                    if (l + 1 < sz && above(vals[base + l + 1], vals[base + l], top)) {
                        w = l + 1;
                    }
                    if (!above(vals[base + w], vals[base + c], top)) {
                        break;
                    }
                    swap(base + c, base + w);
                    c = w;
                }
            }
            return true;
        }

        /**
         * The step's heap positions best first, as Prometheus sorts its heap in reverse: by insertion up
         * to 12 entries (Go's sort for short slices; equal values keep their heap order, NaNs go last in
         * reverse heap order); longer heaps by value with NaN last and heap order on ties, which can
         * order ties and NaNs differently from Go's pattern-defeating quicksort.
         */
        int[] sortedBestFirst(int step, boolean top) {
            int base = step * cap;
            int sz = size[step];
            int[] pos = new int[sz];
            for (int j = 0; j < sz; j++) {
                pos[j] = j;
            }
            if (sz <= 12) {
                for (int i = 1; i < sz; i++) {
                    for (int j = i; j > 0 && above(vals[base + pos[j - 1]], vals[base + pos[j]], top); j--) {
                        int t = pos[j];
                        pos[j] = pos[j - 1];
                        pos[j - 1] = t;
                    }
                }
                return pos;
            }
            Integer[] boxed = new Integer[sz];
            for (int j = 0; j < sz; j++) {
                boxed[j] = j;
            }
            java.util.Arrays.sort(boxed, (x, y) -> {
                double fx = vals[base + x];
                double fy = vals[base + y];
                boolean nx = Double.isNaN(fx);
                boolean ny = Double.isNaN(fy);
                if (nx || ny) {
                    return nx == ny ? Integer.compare(x, y) : (nx ? 1 : -1);
                }
                int c = top ? Double.compare(fy, fx) : Double.compare(fx, fy);
                return c != 0 ? c : Integer.compare(x, y);
            });
            for (int j = 0; j < sz; j++) {
                pos[j] = boxed[j];
            }
            return pos;
        }

        private void swap(int a, int b) {
            double v = vals[a];
            vals[a] = vals[b];
            vals[b] = v;
            int t = idx[a];
            idx[a] = idx[b];
            idx[b] = t;
        }
    }

    /** An empty answer, once the input is evaluated to its end (its errors are the answer's). */
    private static Evaluator.Val drained(Evaluator ev, RowSource src) {
        drainIf(true, ev, src);
        return new Evaluator.VecVal(() -> null);
    }

    private static void drainIf(boolean drain, Evaluator ev, RowSource src) {
        while (drain && src.next() != null) {
            ev.check();
        }
    }

    /** limit_ratio's per-series choice, as Prometheus': the series' hash offset in [0, 1] against the ratio. */
    private static boolean ratioSelected(double offset, double ratio) {
        return ratio >= 0 ? offset < ratio : offset >= 1 + ratio;
    }
}
