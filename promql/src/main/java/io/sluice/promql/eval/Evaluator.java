package io.sluice.promql.eval;

import io.sluice.promql.Annotation;
import io.sluice.promql.PromQLException;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.eval.kernels.DateKernels;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.Queryable;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates an expression over a grid of steps, series at a time: a selector yields each series'
 * values at every step from one pass of its iterator; range functions slide a window over one
 * series' samples held in primitive buffers reused across series; aggregations fold series one at a
 * time into per-group arrays. One instance per query; not thread-safe.
 */
public final class Evaluator {
    /** Prometheus' default subquery step when none is written (the global evaluation interval). */
    public static final long DEFAULT_SUBQUERY_STEP_MS = 60_000L;

    sealed interface Val {
    }

    record VecVal(RowSource src) implements Val {
    }

    record ScalarVal(double[] v) implements Val {
    }

    record StrVal(String s) implements Val {
    }

    record MatVal(List<QueryResult.Series> series) implements Val {
    }

    private final Queryable queryable;
    final long lookback; // read by AtTimestamp
    private final QueryLimits limits;
    private final long queryStart;
    private final long queryEnd;
    private final long queryStep;
    private final boolean delayedNameRemoval;
    private final Map<String, Annotation> warnings = new LinkedHashMap<>();
    private final Map<String, Annotation> infos = new LinkedHashMap<>();
    private long samples;
    private int checkCounter;
    /** Every series set opened, closed when the query ends (also on an error). */
    private final List<SeriesSet> opened = new ArrayList<>();
    /** Set by {@link #evalVectorReading} for the next {@link #select} only. */
    private List<String> projection;

    /** {@code queryStepMs} 0 for an instant query. */
    public Evaluator(Queryable queryable, long lookbackMs, QueryLimits limits, long queryStart, long queryEnd, long queryStepMs,
                     boolean delayedNameRemoval) {
        this.queryable = queryable;
        this.delayedNameRemoval = delayedNameRemoval;
        this.queryStep = queryStepMs;
        this.lookback = lookbackMs;
        this.limits = limits;
        this.queryStart = queryStart;
        this.queryEnd = queryEnd;
    }

    /** Whether a dropped metric name stays until the query ends ({@link io.sluice.promql.EngineOptions}). */
    boolean delayedNameRemoval() {
        return delayedNameRemoval;
    }

    public List<Annotation> warnings() {
        return new ArrayList<>(warnings.values());
    }

    public List<Annotation> infos() {
        return new ArrayList<>(infos.values());
    }

    // ---------------------------------------------------------------- limits

    void check() {
        if (limits.canceled().getAsBoolean()) {
            throw new PromQLException(PromQLException.ErrorType.CANCELED, "query was canceled in expression evaluation");
        }
        if (limits.deadlineNanos() != Long.MAX_VALUE && System.nanoTime() - limits.deadlineNanos() > 0) {
            throw new PromQLException(PromQLException.ErrorType.TIMEOUT, "query timed out in expression evaluation");
        }
    }

    void checkSometimes() {
        if ((++checkCounter & 63) == 0) {
            check();
        }
    }

    void addSamples(long n) {
        samples += n;
        if (samples > limits.maxSamples()) {
            throw PromQLException.execution("query processing would load too many samples into memory in query execution");
        }
    }

    void releaseSamples(long n) {
        samples -= n;
    }

    static PromQLException execError(String msg) {
        return PromQLException.execution(msg);
    }

    // ---------------------------------------------------------------- top level

    /** Evaluates {@code e} over {@code g}; vectors come back materialised, names removed where due. */
    public QueryResult run(Expr e, long start, long end, long step, boolean instant) {
        try {
            return runUnclosed(e, start, end, step, instant);
        } finally {
            for (SeriesSet s : opened) {
                try {
                    s.close();
                } catch (RuntimeException ignored) {
                    // closing is best effort; the query's own outcome stands
                }
            }
            opened.clear();
        }
    }

    /** With {@code latest}, the reader calls only {@link SampleIterator#latest}{@code (from, maxt)}. */
    SeriesSet select(long mint, long maxt, List<LabelMatcher> matchers, boolean latest) {
        SeriesSet s = latest ? queryable.selectLatest(mint, maxt, matchers) : queryable.select(mint, maxt, matchers);
        opened.add(s);
        List<String> names = projection;
        projection = null;
        return names == null ? s : new ProjectedSeriesSet(s, names);
    }

    /**
     * {@code e}'s rows for a consumer that reads only the labels {@code names} of them (sorted,
     * distinct; e.g. an aggregation {@code by} those labels): where {@code e} is a selector, or a
     * one-argument range function of a matrix selector of one metric name (which passes labels through and
     * reads only the name; of several names, series could clash once it drops them), its series may carry
     * only those labels (and the name for the function), so the store converts no others. Any other expression is evaluated as by {@link #evalVector}.
     */
    RowSource evalVectorReading(Expr e, Grid g, List<String> names) {
        Expr inner = Functions.unparen(e);
        List<String> keep = null;
        if (inner instanceof Expr.VectorSelector) {
            keep = names;
        } else if (inner instanceof Expr.Call c && c.args().size() == 1 && RangeFunctions.isRangeFunction(c.function())
                && !c.function().equals("absent_over_time") && Functions.unparen(c.args().get(0)) instanceof Expr.MatrixSelector ms
                && (ms.selector().name() != null || delayedNameRemoval)) {
            java.util.TreeSet<String> withName = new java.util.TreeSet<>(names);
            withName.add(Labels.METRIC_NAME);
            keep = List.copyOf(withName);
        }
        projection = keep; // taken by the one select() the node makes, eagerly
        try {
            return evalVector(e, g);
        } finally {
            projection = null;
        }
    }

    /** A series set whose series carry only some labels ({@link #evalVectorReading}). */
    private record ProjectedSeriesSet(SeriesSet set, List<String> names) implements SeriesSet {
        @Override
        public boolean next() {
            return set.next();
        }

        @Override
        public Labels labels() {
            return set.labels(names);
        }

        @Override
        public SampleIterator iterator(SampleIterator reuse) {
            return set.iterator(reuse);
        }
    }

    private QueryResult runUnclosed(Expr e, long start, long end, long step, boolean instant) {
        check();
        Grid g = instant ? Grid.of(start, start, 0) : Grid.of(start, end, step);
        Val v = eval(e, g);
        QueryResult r;
        switch (v) {
            case StrVal s -> r = new QueryResult(ValueType.STRING, List.of(), start, Double.NaN, s.s(), warnings(), infos());
            case ScalarVal s -> {
                if (instant) {
                    r = new QueryResult(ValueType.SCALAR, List.of(), start, s.v()[0], null, warnings(), infos());
                } else {
                    long[] ts = new long[g.n()];
                    for (int i = 0; i < g.n(); i++) {
                        ts[i] = g.t(i);
                    }
                    r = new QueryResult(ValueType.MATRIX, List.of(new QueryResult.Series(Labels.EMPTY, ts, s.v().clone(), g.n())),
                            0, Double.NaN, null, warnings(), infos());
                }
            }
            case MatVal m -> {
                List<QueryResult.Series> out = new ArrayList<>(m.series());
                out.sort((a, b) -> a.labels().compareTo(b.labels()));
                r = new QueryResult(ValueType.MATRIX, out, 0, Double.NaN, null, warnings(), infos());
            }
            case VecVal vv -> {
                List<Row> rows = materialize(vv.src());
                for (Row row : rows) {
                    if (row.dropName) {
                        row.labels = row.labels.withoutMetadata();
                        row.dropName = false;
                    }
                }
                if (instant) {
                    Set<Labels> seen = java.util.HashSet.newHashSet(rows.size());
                    List<QueryResult.Series> out = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        if (!seen.add(row.labels)) {
                            throw execError("vector cannot contain metrics with the same labelset");
                        }
                        out.add(new QueryResult.Series(row.labels, new long[] {start}, new double[] {row.v[0]}, 1));
                    }
                    r = new QueryResult(ValueType.VECTOR, out, start, Double.NaN, null, warnings(), infos());
                } else {
                    rows = mergeSameLabels(rows, g.n());
                    List<QueryResult.Series> out = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        int c = row.count();
                        long[] ts = new long[c];
                        double[] vs = new double[c];
                        int k = 0;
                        for (int i = 0; i < g.n(); i++) {
                            if (!Row.absent(row.v[i])) {
                                ts[k] = g.t(i);
                                vs[k++] = row.v[i];
                            }
                        }
                        out.add(new QueryResult.Series(row.labels, ts, vs, c));
                    }
                    out.sort((a, b) -> a.labels().compareTo(b.labels()));
                    r = new QueryResult(ValueType.MATRIX, out, 0, Double.NaN, null, warnings(), infos());
                }
            }
        }
        return r;
    }

    /** Rows with equal labels become one (their steps must not overlap). */
    private List<Row> mergeSameLabels(List<Row> rows, int n) {
        Map<Labels, Row> byLabels = new LinkedHashMap<>();
        boolean dup = false;
        for (Row row : rows) {
            Row prev = byLabels.putIfAbsent(row.labels, row);
            if (prev != null) {
                dup = true;
                for (int i = 0; i < n; i++) {
                    if (!Row.absent(row.v[i])) {
                        if (!Row.absent(prev.v[i])) {
                            throw execError("vector cannot contain metrics with the same labelset");
                        }
                        prev.v[i] = row.v[i];
                    }
                }
                prev.dropName |= row.dropName;
            }
        }
        return dup ? new ArrayList<>(byLabels.values()) : rows;
    }

    List<Row> materialize(RowSource src) {
        List<Row> out = new ArrayList<>();
        for (Row r = src.next(); r != null; r = src.next()) {
            checkSometimes();
            addSamples(r.count());
            out.add(r.copy());
        }
        return out;
    }

    // ---------------------------------------------------------------- dispatch

    Val eval(Expr e, Grid g) {
        if (g.n() > 1 && !(e instanceof Expr.NumberLiteral) && !(e instanceof Expr.StringLiteral)
                && (e.type() == ValueType.VECTOR || e.type() == ValueType.SCALAR) && stepInvariant(e)) {
            return broadcast(evalOnGrid(e, Grid.of(g.start(), g.start(), 0)), g.n());
        }
        return evalOnGrid(e, g);
    }

    /**
     * Whether {@code e} has the same value at every step (its selectors and subqueries are pinned with
     * {@code @}, and no function reads the evaluation time), so one evaluation serves every step.
     */
    static boolean stepInvariant(Expr e) {
        return switch (e) {
            case Expr.NumberLiteral n -> true;
            case Expr.StringLiteral s -> true;
            case Expr.VectorSelector vs -> vs.atKind() != Expr.AtKind.NONE;
            case Expr.MatrixSelector ms -> ms.selector().atKind() != Expr.AtKind.NONE;
            case Expr.Subquery sq -> sq.atKind() != Expr.AtKind.NONE;
            case Expr.Paren p -> stepInvariant(p.expr());
            case Expr.Unary u -> stepInvariant(u.expr());
            case Expr.Binary b -> stepInvariant(b.lhs()) && stepInvariant(b.rhs());
            // As Prometheus: an aggregation's parameter does not count.
            case Expr.Aggregate a -> stepInvariant(a.expr());
            case Expr.Call c -> {
                boolean allArgs = true;
                for (Expr a : c.args()) {
                    allArgs &= stepInvariant(a);
                }
                yield switch (c.function()) {
                    case "timestamp" -> allArgs && Functions.unparen(c.args().get(0)) instanceof Expr.VectorSelector;
                    case "time", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute", "month",
                         "year", "start", "end", "range", "step", "predict_linear" -> false;
                    default -> allArgs;
                };
            }
        };
    }

    private Val broadcast(Val v, int n) {
        return switch (v) {
            case ScalarVal s -> {
                double[] o = new double[n];
                Arrays.fill(o, s.v()[0]);
                yield new ScalarVal(o);
            }
            case VecVal vv -> {
                RowSource src = vv.src();
                double[] buf = new double[n];
                Row out = new Row(null, false, buf);
                yield new VecVal(() -> {
                    Row r = src.next();
                    if (r == null) {
                        return null;
                    }
                    Arrays.fill(buf, r.v[0]);
                    out.labels = r.labels;
                    out.dropName = r.dropName;
                    out.v = buf;
                    return out;
                });
            }
            default -> v;
        };
    }

    private Val evalOnGrid(Expr e, Grid g) {
        return switch (e) {
            case Expr.NumberLiteral n -> {
                double[] v = new double[g.n()];
                Arrays.fill(v, n.value());
                yield new ScalarVal(v);
            }
            case Expr.StringLiteral s -> new StrVal(s.value());
            case Expr.Paren p -> eval(p.expr(), g);
            case Expr.Unary u -> ImmediateNameRemoval.apply(this, u, evalUnary(u, g), false, g.n());
            case Expr.VectorSelector vs -> new VecVal(selectVector(vs, g));
            case Expr.MatrixSelector ms -> new MatVal(matrixAsResult(ms, g));
            case Expr.Subquery sq -> new MatVal(subqueryAsResult(sq, g));
            case Expr.Call c -> ImmediateNameRemoval.apply(this, c, Functions.call(this, c, g), Functions.hasRangeArg(c), g.n());
            case Expr.Aggregate a -> Aggregations.eval(this, a, g);
            case Expr.Binary b -> ImmediateNameRemoval.apply(this, b, BinaryOps.eval(this, b, g), false, g.n());
        };
    }

    RowSource evalVector(Expr e, Grid g) {
        Val v = eval(e, g);
        if (v instanceof VecVal vv) {
            return vv.src();
        }
        throw new IllegalStateException("expected an instant vector, got " + v);
    }

    double[] evalScalar(Expr e, Grid g) {
        Val v = eval(e, g);
        if (v instanceof ScalarVal s) {
            return s.v();
        }
        throw new IllegalStateException("expected a scalar, got " + v);
    }

    private Val evalUnary(Expr.Unary u, Grid g) {
        Val v = eval(u.expr(), g);
        if (!u.negate()) {
            return v;
        }
        if (v instanceof ScalarVal s) {
            double[] o = s.v().clone();
            for (int i = 0; i < o.length; i++) {
                o[i] = -o[i];
            }
            return new ScalarVal(o);
        }
        RowSource src = ((VecVal) v).src();
        return new VecVal(() -> {
            Row r = src.next();
            if (r == null) {
                return null;
            }
            for (int i = 0; i < r.v.length; i++) {
                if (!Row.absent(r.v[i])) {
                    r.v[i] = -r.v[i];
                }
            }
            r.dropName = true;
            return r;
        });
    }

    // ---------------------------------------------------------------- selectors

    long queryStart() {
        return queryStart;
    }

    long queryEnd() {
        return queryEnd;
    }

    long queryStep() {
        return queryStep;
    }

    long atTime(Expr.AtKind kind, long atMs) {
        return switch (kind) {
            case START -> queryStart;
            case END -> queryEnd;
            case TIMESTAMP -> atMs;
            case NONE -> throw new IllegalStateException();
        };
    }

    /** The reference time of step {@code i} for a node with this offset and {@code @}. */
    long refTime(Grid g, int i, long offset, Expr.AtKind at, long atMs) {
        return (at == Expr.AtKind.NONE ? g.t(i) : atTime(at, atMs)) - offset;
    }

    /** Instant vector selection: per series, the latest sample in (t - lookback, t] unless it is a staleness marker. */
    RowSource selectVector(Expr.VectorSelector vs, Grid g) {
        return selectVector(vs, g, false);
    }

    /** With {@code timestamps}, each step's value is the selected sample's timestamp in seconds. */
    RowSource selectVector(Expr.VectorSelector vs, Grid g, boolean timestamps) {
        int n = g.n();
        if (n == 0) {
            return () -> null;
        }
        long first = refTime(g, 0, vs.offsetMs(), vs.atKind(), vs.atMs());
        long last = refTime(g, n - 1, vs.offsetMs(), vs.atKind(), vs.atMs());
        long mint = Math.min(first, last) - lookback + 1;
        long maxt = Math.max(first, last);
        boolean pinned = vs.atKind() != Expr.AtKind.NONE;
        SeriesSet set = select(mint, maxt, vs.matchers(), n == 1 || pinned); // fill: latest(., maxt) alone
        double[] buf = new double[n];
        Row row = new Row(null, false, buf);
        return new RowSource() {
            SampleIterator it;
            boolean done;

            @Override
            public Row next() {
                if (done) {
                    return null;
                }
                while (set.next()) {
                    checkSometimes();
                    it = set.iterator(it);
                    boolean any = fill(it, g, vs, pinned, buf, timestamps);
                    if (any) {
                        row.labels = set.labels();
                        row.dropName = false;
                        row.v = buf;
                        return row;
                    }
                }
                done = true;
                return null;
            }
        };
    }

    private boolean fill(SampleIterator it, Grid g, Expr.VectorSelector vs, boolean pinned, double[] buf, boolean timestamps) {
        int n = g.n();
        boolean have = false;
        long lastT = Long.MIN_VALUE;
        double lastV = 0;
        boolean any = false;
        if (n == 1 || pinned) { // one reference time: its latest sample alone, which a store may know without a decode
            long rt = refTime(g, 0, vs.offsetMs(), vs.atKind(), vs.atMs());
            boolean found = it.latest(rt - lookback + 1, rt) && !SampleIterator.isStaleMarker(it.value());
            Arrays.fill(buf, found ? (timestamps ? it.timestamp() / 1000.0 : it.value()) : Row.ABSENT);
            return found;
        }
        for (int i = 0; i < n; i++) {
            long rt = refTime(g, i, vs.offsetMs(), vs.atKind(), vs.atMs());
            long lo = rt - lookback; // exclusive
            if (i == 0 || have && it.timestamp() <= lo) {
                lastT = Long.MIN_VALUE;
                have = it.seek(lo + 1);
            }
            while (have && it.timestamp() <= rt) {
                lastT = it.timestamp();
                lastV = it.value();
                have = it.next();
            }
            if (lastT != Long.MIN_VALUE && lastT > lo && !SampleIterator.isStaleMarker(lastV)) {
                buf[i] = timestamps ? lastT / 1000.0 : lastV;
                any = true;
            } else {
                buf[i] = Row.ABSENT;
            }
        }
        return any;
    }

    // ---------------------------------------------------------------- range windows

    Windows windows(Expr arg, Grid g) {
        return new Windows(this, arg, g);
    }

    /** The inner steps of a subquery: absolute multiples of its step, after (t - offset - range), up to t - offset. */
    Grid subqueryGrid(Expr.Subquery sq, Grid g) {
        long step = sq.stepMs() > 0 ? sq.stepMs() : DEFAULT_SUBQUERY_STEP_MS;
        long startRef;
        long endRef;
        if (sq.atKind() != Expr.AtKind.NONE) {
            startRef = endRef = atTime(sq.atKind(), sq.atMs());
        } else {
            startRef = g.start();
            endRef = g.lastT();
        }
        long x = startRef - sq.offsetMs() - sq.rangeMs();
        long start = step * (x / step);
        if (start <= x) {
            start += step;
        }
        long end = endRef - sq.offsetMs();
        Grid inner = Grid.of(start, end, step);
        if (inner.n() > limits.maxSamples()) {
            // One inner series alone would hold more points than the query may.
            throw execError("query processing would load too many samples into memory in query execution");
        }
        return inner;
    }

    private List<QueryResult.Series> matrixAsResult(Expr arg, Grid g) {
        Windows w = windows(arg, g);
        long end = refTime(g, 0, w.offset, w.at, w.atMs);
        long start = end - w.rangeMs;
        List<QueryResult.Series> out = new ArrayList<>();
        while (w.next()) {
            int lo = 0;
            while (lo < w.n && w.ts[lo] <= start) {
                lo++;
            }
            int hi = lo;
            while (hi < w.n && w.ts[hi] <= end) {
                hi++;
            }
            if (hi > lo) {
                addSamples(hi - lo);
                Labels l = w.dropName ? w.labels.withoutMetadata() : w.labels;
                out.add(new QueryResult.Series(l, Arrays.copyOfRange(w.ts, lo, hi), Arrays.copyOfRange(w.vs, lo, hi), hi - lo));
            }
        }
        return out;
    }

    private List<QueryResult.Series> matrixAsResult(Expr.MatrixSelector ms, Grid g) {
        return matrixAsResult((Expr) ms, g);
    }

    private List<QueryResult.Series> subqueryAsResult(Expr.Subquery sq, Grid g) {
        return matrixAsResult((Expr) sq, g);
    }

    // ---------------------------------------------------------------- annotations

    /** A warning about the node at {@code at} (its start is the position the HTTP API shows). */
    void warn(String text, Expr at) {
        warnings.merge(text, new Annotation(text, at.pos().start()), Annotation::merge);
    }

    void info(String text, Expr at) {
        info(new Annotation(text, at.pos().start()));
    }

    void info(Annotation a) {
        infos.merge(a.text(), a, Annotation::merge);
    }

    // ---------------------------------------------------------------- label helpers

    static Labels absentLabels(Expr arg) {
        while (arg instanceof Expr.Paren p) {
            arg = p.expr();
        }
        List<LabelMatcher> ms;
        if (arg instanceof Expr.VectorSelector vs) {
            ms = vs.matchers();
        } else if (arg instanceof Expr.MatrixSelector m) {
            ms = m.selector().matchers();
        } else {
            return Labels.EMPTY;
        }
        Labels.Builder b = new Labels.Builder();
        Set<String> has = new java.util.HashSet<>();
        for (LabelMatcher m : ms) {
            if (m.name().equals(Labels.METRIC_NAME)) {
                continue;
            }
            if (m.type() == LabelMatcher.Type.EQUAL && !has.contains(m.name())) {
                b.set(m.name(), m.value());
                has.add(m.name());
            } else {
                b.delete(m.name());
            }
        }
        return b.build();
    }

    /** The date functions through {@code eval.kernels.DateKernels} (Go's calendar). */
    static double dateFn(String fn, double seconds) {
        return switch (fn) {
            case "day_of_month" -> DateKernels.dayOfMonth(seconds);
            case "day_of_week" -> DateKernels.dayOfWeek(seconds);
            case "day_of_year" -> DateKernels.dayOfYear(seconds);
            case "days_in_month" -> DateKernels.daysInMonth(seconds);
            case "hour" -> DateKernels.hour(seconds);
            case "minute" -> DateKernels.minute(seconds);
            case "month" -> DateKernels.month(seconds);
            case "year" -> DateKernels.year(seconds);
            default -> throw new IllegalArgumentException(fn);
        };
    }
}
