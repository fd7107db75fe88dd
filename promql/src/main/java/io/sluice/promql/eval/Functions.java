package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.eval.kernels.MathKernels;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.parse.GoStrings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/** Function calls: range-vector functions series at a time over all steps, instant-vector functions as row maps. */
final class Functions {
    private Functions() {
    }

    static Evaluator.Val call(Evaluator ev, Expr.Call c, Grid g) {
        String fn = c.function();
        List<Expr> args = c.args();
        if (RangeFunctions.isRangeFunction(fn)) {
            return rangeFunction(ev, c, g);
        }
        switch (fn) {
            case "time":
                return scalar(g, i -> g.t(i) / 1000.0);
            case "pi":
                return scalar(g, i -> Math.PI);
            case "start":
                return scalar(g, i -> ev.queryStart() / 1000.0);
            case "end":
                return scalar(g, i -> ev.queryEnd() / 1000.0);
            case "range":
                return scalar(g, i -> (ev.queryEnd() - ev.queryStart()) / 1000.0);
            case "step":
                return scalar(g, i -> ev.queryStep() / 1000.0);
            case "min_of", "max_of": {
                double[] a = ev.evalScalar(args.get(0), g);
                double[] b = ev.evalScalar(args.get(1), g);
                boolean min = fn.equals("min_of");
                return scalar(g, i -> min ? MathKernels.goMin(a[i], b[i]) : MathKernels.goMax(a[i], b[i]));
            }
            case "vector": {
                double[] s = ev.evalScalar(args.get(0), g);
                Row r = new Row(Labels.EMPTY, false, s.clone());
                return new Evaluator.VecVal(RowSource.of(List.of(r)));
            }
            case "scalar": {
                RowSource src = ev.evalVector(args.get(0), g);
                double[] out = new double[g.n()];
                int[] count = new int[g.n()];
                for (Row r = src.next(); r != null; r = src.next()) {
                    for (int i = 0; i < g.n(); i++) {
                        if (!Row.absent(r.v[i])) {
                            count[i]++;
                            out[i] = r.v[i];
                        }
                    }
                }
                for (int i = 0; i < g.n(); i++) {
                    if (count[i] != 1) {
                        out[i] = Double.NaN;
                    }
                }
                return new Evaluator.ScalarVal(out);
            }
            case "absent": {
                RowSource src = ev.evalVector(args.get(0), g);
                boolean[] seen = new boolean[g.n()];
                for (Row r = src.next(); r != null; r = src.next()) {
                    for (int i = 0; i < g.n(); i++) {
                        if (!Row.absent(r.v[i])) {
                            seen[i] = true;
                        }
                    }
                }
                double[] v = Row.absentArray(g.n());
                boolean any = false;
                for (int i = 0; i < g.n(); i++) {
                    if (!seen[i]) {
                        v[i] = 1;
                        any = true;
                    }
                }
                List<Row> out = any ? List.of(new Row(Evaluator.absentLabels(args.get(0)), false, v)) : List.of();
                return new Evaluator.VecVal(RowSource.of(out));
            }
            case "timestamp": {
                Expr a = args.get(0);
                while (a instanceof Expr.Paren p) {
                    a = p.expr();
                }
                RowSource src;
                if (a instanceof Expr.VectorSelector vs) {
                    src = vs.atKind() == Expr.AtKind.NONE ? ev.selectVector(vs, g, true) : AtTimestamp.select(ev, vs, g);
                    return map(src, (r, i, v) -> v, true);
                }
                src = ev.evalVector(a, g);
                return map(src, (r, i, v) -> g.t(i) / 1000.0, true);
            }
            case "label_replace":
                return LabelFunctions.labelReplace(ev, c, g);
            case "label_join":
                return LabelFunctions.labelJoin(ev, c, g);
            case "sort", "sort_desc", "sort_by_label", "sort_by_label_desc":
                return sort(ev, c, g);
            case "histogram_avg", "histogram_count", "histogram_sum", "histogram_stddev", "histogram_stdvar": {
                // Native-histogram functions ignore float samples: over floats they yield nothing.
                RowSource src = ev.evalVector(args.get(0), g);
                while (src.next() != null) {
                    ev.check();
                }
                return new Evaluator.VecVal(() -> null);
            }
            case "info":
                return InfoFunction.eval(ev, c, g);
            case "start_timestamp":
                throw new io.sluice.promql.PromQLException(io.sluice.promql.PromQLException.ErrorType.BAD_DATA,
                        "function \"" + fn + "\" is not supported by Sluice");
            case "histogram_quantile", "histogram_fraction", "histogram_quantiles":
                return HistogramQuantile.eval(ev, c, g);
            case "clamp", "clamp_min", "clamp_max": {
                RowSource src = ev.evalVector(args.get(0), g);
                double[] lo = fn.equals("clamp_max") ? null : ev.evalScalar(args.get(1), g);
                double[] hi = fn.equals("clamp") ? ev.evalScalar(args.get(2), g)
                        : fn.equals("clamp_max") ? ev.evalScalar(args.get(1), g) : null;
                return map(src, (r, i, v) -> {
                    double min = lo == null ? Double.NEGATIVE_INFINITY : lo[i];
                    double max = hi == null ? Double.POSITIVE_INFINITY : hi[i];
                    if (max < min) {
                        return Row.ABSENT;
                    }
                    return MathKernels.clamp(v, min, max);
                }, true);
            }
            case "round": {
                RowSource src = ev.evalVector(args.get(0), g);
                double[] to = args.size() > 1 ? ev.evalScalar(args.get(1), g) : null;
                return map(src, (r, i, v) -> MathKernels.round(v, to == null ? 1 : to[i]), true);
            }
            case "day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute", "month", "year": {
                if (args.isEmpty()) {
                    double[] v = new double[g.n()];
                    for (int i = 0; i < g.n(); i++) {
                        v[i] = Evaluator.dateFn(fn, g.t(i) / 1000.0);
                    }
                    return new Evaluator.VecVal(RowSource.of(List.of(new Row(Labels.EMPTY, false, v))));
                }
                RowSource src = ev.evalVector(args.get(0), g);
                return map(src, (r, i, v) -> Evaluator.dateFn(fn, v), true);
            }
            default:
                DoubleUnaryOperator op = mathFunction(fn);
                if (op == null) {
                    throw new io.sluice.promql.PromQLException(io.sluice.promql.PromQLException.ErrorType.BAD_DATA,
                            "unknown function with name \"" + fn + "\"");
                }
                RowSource src = ev.evalVector(args.get(0), g);
                return map(src, (r, i, v) -> op.applyAsDouble(v), true);
        }
    }

    static DoubleUnaryOperator mathFunction(String fn) {
        return switch (fn) {
            case "abs" -> Math::abs;
            case "ceil" -> Math::ceil;
            case "floor" -> Math::floor;
            case "exp" -> Math::exp;
            case "sqrt" -> Math::sqrt;
            case "ln" -> MathKernels::ln;
            case "log2" -> MathKernels::log2;
            case "log10" -> MathKernels::log10;
            case "sin" -> Math::sin;
            case "cos" -> Math::cos;
            case "tan" -> Math::tan;
            case "asin" -> Math::asin;
            case "acos" -> Math::acos;
            case "atan" -> Math::atan;
            case "sinh" -> Math::sinh;
            case "cosh" -> Math::cosh;
            case "tanh" -> Math::tanh;
            case "asinh" -> Functions::asinh;
            case "acosh" -> Functions::acosh;
            case "atanh" -> Functions::atanh;
            case "rad" -> MathKernels::rad;
            case "deg" -> MathKernels::deg;
            case "sgn" -> MathKernels::sgn;
            default -> null;
        };
    }

    private static final double LN2 = 6.93147180559945286227e-01;
    private static final double LARGE = 1 << 28;
    private static final double NEAR_ZERO = 1.0 / (1 << 28);

    static double asinh(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return x;
        }
        boolean sign = x < 0;
        if (sign) {
            x = -x;
        }
        double t;
        if (x > LARGE) {
            t = MathKernels.ln(x) + LN2;
        } else if (x > 2) {
            t = MathKernels.ln(2 * x + 1 / (Math.sqrt(x * x + 1) + x));
        } else if (x < NEAR_ZERO) {
            t = x;
        } else {
            t = Math.log1p(x + x * x / (1 + Math.sqrt(1 + x * x)));
        }
        return sign ? -t : t;
    }

    static double acosh(double x) {
        if (x < 1 || Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == 1) {
            return 0;
        }
        if (x >= LARGE) {
            return MathKernels.ln(x) + LN2;
        }
        if (x > 2) {
            return MathKernels.ln(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
        }
        double t = x - 1;
        return Math.log1p(t + Math.sqrt(2 * t + t * t));
    }

    static double atanh(double x) {
        if (x < -1 || x > 1 || Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == 1) {
            return Double.POSITIVE_INFINITY;
        }
        if (x == -1) {
            return Double.NEGATIVE_INFINITY;
        }
        boolean sign = x < 0;
        if (sign) {
            x = -x;
        }
        double t;
        if (x < NEAR_ZERO) {
            t = x;
        } else if (x < 0.5) {
            t = x + x;
            t = 0.5 * Math.log1p(t + t * x / (1 - x));
        } else {
            t = 0.5 * Math.log1p((x + x) / (1 - x));
        }
        return sign ? -t : t;
    }

    interface StepFn {
        double apply(Row r, int step, double v);
    }

    interface IntToDouble {
        double apply(int i);
    }

    static Evaluator.Val scalar(Grid g, IntToDouble f) {
        double[] v = new double[g.n()];
        for (int i = 0; i < g.n(); i++) {
            v[i] = f.apply(i);
        }
        return new Evaluator.ScalarVal(v);
    }

    /** Maps each present point of each row in place; ABSENT from {@code f} removes the point. */
    static Evaluator.Val map(RowSource src, StepFn f, boolean dropName) {
        return new Evaluator.VecVal(() -> {
            while (true) {
                Row r = src.next();
                if (r == null) {
                    return null;
                }
                boolean any = false;
                for (int i = 0; i < r.v.length; i++) {
                    if (!Row.absent(r.v[i])) {
                        r.v[i] = f.apply(r, i, r.v[i]);
                        any |= !Row.absent(r.v[i]);
                    }
                }
                if (dropName) {
                    r.dropName = true;
                }
                if (any) {
                    return r;
                }
            }
        });
    }

    /** Whether a call takes a range vector (Prometheus evaluates those series by series). */
    static boolean hasRangeArg(Expr.Call c) {
        for (Expr a : c.args()) {
            if (a.type() == io.sluice.promql.ast.ValueType.MATRIX) {
                return true;
            }
        }
        return false;
    }

    private static Evaluator.Val rangeFunction(Evaluator ev, Expr.Call c, Grid g) {
        String fn = c.function();
        List<Expr> args = c.args();
        int mi = 0;
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).type() == io.sluice.promql.ast.ValueType.MATRIX) {
                mi = i;
                break;
            }
        }
        double[] p0 = null;
        double[] p1 = null;
        List<double[]> scalars = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (i != mi) {
                scalars.add(ev.evalScalar(args.get(i), g));
            }
        }
        if (!scalars.isEmpty()) {
            p0 = scalars.get(0);
        }
        if (scalars.size() > 1) {
            p1 = scalars.get(1);
        }
        Expr arg = args.get(mi);
        Windows w = ev.windows(arg, g);
        int n = g.n();
        boolean keepName = fn.equals("last_over_time") || fn.equals("first_over_time");
        boolean counterCheck = fn.equals("rate") || fn.equals("increase");
        final double[] fp0 = p0;
        final double[] fp1 = p1;
        if (fn.equals("absent_over_time")) {
            boolean[] seen = new boolean[n];
            while (w.next()) {
                slide(w, g, (i, lo, hi, ws, we) -> {
                    if (hi > lo) {
                        seen[i] = true;
                    }
                });
            }
            double[] v = Row.absentArray(n);
            boolean any = false;
            for (int i = 0; i < n; i++) {
                if (!seen[i]) {
                    v[i] = 1;
                    any = true;
                }
            }
            List<Row> out = any ? List.of(new Row(Evaluator.absentLabels(arg), true, v)) : List.of();
            return new Evaluator.VecVal(RowSource.of(out));
        }
        double[] buf = new double[n];
        Row row = new Row(null, false, buf);
        long rangeMs = w.rangeMs;
        RangeFunctions.Kind kind = RangeFunctions.Kind.of(fn);
        boolean checked = kind == RangeFunctions.Kind.QUANTILE_OVER_TIME || kind == RangeFunctions.Kind.DOUBLE_EXPONENTIAL_SMOOTHING;
        RangeFunctions.Scratch scratch = new RangeFunctions.Scratch();
        return new Evaluator.VecVal(new RowSource() {
            boolean any;
            int maxWindow;
            String checkedName;
            final WindowFn step = (i, lo, hi, ws, we) -> {
                if (checked && hi > lo) {
                    RangeFunctions.checkParameters(ev, kind, fp0[i], fp1 == null ? 0 : fp1[i], args.get(0));
                }
                double r = RangeFunctions.apply(kind, w.ts, w.vs, lo, hi, ws, we, rangeMs, g.t(i),
                        fp0 == null ? 0 : fp0[i], fp1 == null ? 0 : fp1[i], scratch);
                buf[i] = r;
                any |= !Row.absent(r);
                maxWindow = Math.max(maxWindow, hi - lo);
            };

            @Override
            public Row next() {
                while (w.next()) {
                    any = false;
                    maxWindow = 0;
                    slide(w, g, step);
                    ev.addSamples(maxWindow);
                    ev.releaseSamples(maxWindow);
                    if (!any) {
                        continue;
                    }
                    if (counterCheck) {
                        String name = w.labels.metricName();
                        // once per name in a row of series of one metric: the info is the same text
                        if (!name.equals(checkedName) && !name.isEmpty() && !name.endsWith("_total") && !name.endsWith("_sum")
                                && !name.endsWith("_count") && !name.endsWith("_bucket")) {
                            checkedName = name;
                            ev.info("PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "
                                    + GoStrings.quote(name), args.get(0));
                        }
                    }
                    row.labels = w.labels;
                    row.dropName = !keepName || w.dropName;
                    row.v = buf;
                    return row;
                }
                return null;
            }
        });
    }

    interface WindowFn {
        void apply(int step, int lo, int hi, long windowStart, long windowEnd);
    }

    /** Calls {@code f} for each step with the window (windowEnd - range, windowEnd] of the current series. */
    static void slide(Windows w, Grid g, WindowFn f) {
        int lo = 0;
        int hi = 0;
        long prevEnd = Long.MIN_VALUE;
        for (int i = 0; i < g.n(); i++) {
            long end = (w.at == Expr.AtKind.NONE ? g.t(i) : w.atTimeValue()) - w.offset;
            long start = end - w.rangeMs;
            if (end < prevEnd) {
                lo = 0;
                hi = 0;
            }
            prevEnd = end;
            while (lo < w.n && w.ts[lo] <= start) {
                lo++;
            }
            if (hi < lo) {
                hi = lo;
            }
            while (hi < w.n && w.ts[hi] <= end) {
                hi++;
            }
            f.apply(i, lo, hi, start, end);
        }
    }

    private static Evaluator.Val sort(Evaluator ev, Expr.Call c, Grid g) {
        String fn = c.function();
        List<Row> rows = ev.materialize(ev.evalVector(c.args().get(0), g));
        if (g.n() > 1) {
            ev.warn("PromQL warning: sort is ineffective for range queries since results are always ordered by labels", c);
            return new Evaluator.VecVal(RowSource.of(rows));
        }
        Comparator<Row> cmp;
        switch (fn) {
            // Prometheus: Go's sort.Sort, which moves a series before its left neighbour when that one is NaN
            // or beyond it; so NaNs go last, in reverse order (FloatOps.goSort)
            case "sort" -> cmp = (a, b) -> valueOrder(a.v[0], b.v[0], false);
            case "sort_desc" -> cmp = (a, b) -> valueOrder(a.v[0], b.v[0], true);
            default -> {
                List<String> names = new ArrayList<>();
                for (int i = 1; i < c.args().size(); i++) {
                    names.add(((Expr.StringLiteral) unparen(c.args().get(i))).value());
                }
                boolean desc = fn.endsWith("_desc");
                // Prometheus' comparison: a label whose values differ decides, by natural order, which is no
                // total order (FloatOps.natLess), so the sort is Go's where that shows (FloatOps.goSort)
                cmp = (a, b) -> {
                    for (String l : names) {
                        String x = a.labels.get(l);
                        String y = b.labels.get(l);
                        if (x.equals(y)) {
                            continue;
                        }
                        int r = FloatOps.natLess(x, y) ? -1 : 1;
                        return desc ? -r : r;
                    }
                    int r = a.labels.compareTo(b.labels);
                    return desc ? -r : r;
                };
            }
        }
        FloatOps.goSort(rows, cmp);
        return new Evaluator.VecVal(RowSource.of(rows));
    }

    /**
     * sort's and sort_desc's comparison, as Prometheus' sort orders: {@code a} goes before {@code b} when
     * {@code b} is NaN or beyond {@code a} (above it for sort, below for sort_desc). Two NaNs each go before
     * the other: no total order, so the result is Go's sort's ({@link FloatOps#goSort}).
     */
    private static int valueOrder(double a, double b, boolean desc) {
        if (Double.isNaN(b) || (desc ? b < a : b > a)) {
            return -1;
        }
        return Double.isNaN(a) || (desc ? a < b : a > b) ? 1 : 0;
    }

    static Expr unparen(Expr e) {
        while (e instanceof Expr.Paren p) {
            e = p.expr();
        }
        return e;
    }
}
