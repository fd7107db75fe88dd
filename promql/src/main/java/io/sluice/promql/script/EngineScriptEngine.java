package io.sluice.promql.script;

import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Printer;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.parse.Parser;
import io.sluice.promql.storage.Queryable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Sluice's {@link Engine} as the script runner sees it, set up as Prometheus' test engine is: lookback
 * 5m, at most 50,000,000 samples per query, a 100 s timeout, and no points-per-series limit (Prometheus
 * enforces 11,000 points in its HTTP API, not in the engine its tests run).
 */
public final class EngineScriptEngine implements ScriptEngine {
    private static final long TIMEOUT_NANOS = 100_000_000_000L;
    private static final long MAX_SAMPLES = 50_000_000L;
    /** Functions whose value depends on the evaluation time even when their input is pinned by {@code @}. */
    private static final Set<String> AT_UNSAFE = Set.of("days_in_month", "day_of_month", "day_of_week", "day_of_year",
            "end", "hour", "minute", "month", "year", "predict_linear", "range", "start", "step", "time", "timestamp");

    private final Engine engine = new Engine(new EngineOptions(EngineOptions.DEFAULTS.lookbackDeltaMs(), Integer.MAX_VALUE, true));

    private static QueryLimits limits() {
        return new QueryLimits(System.nanoTime() + TIMEOUT_NANOS, MAX_SAMPLES, () -> false);
    }

    @Override
    public QueryResult instant(Queryable storage, String query, long timeMs) {
        return engine.instant(storage, query, timeMs, 0, limits());
    }

    @Override
    public QueryResult range(Queryable storage, String query, long startMs, long endMs, long stepMs) {
        return engine.range(storage, query, startMs, endMs, stepMs, 0, limits());
    }

    @Override
    public String withAtModifier(String query, long timeMs) {
        Expr e;
        try {
            e = Parser.parse(query);
        } catch (RuntimeException ex) {
            return null;
        }
        boolean[] unsafe = new boolean[1];
        Expr pinned = pin(e, timeMs, unsafe);
        return unsafe[0] ? null : Printer.print(pinned);
    }

    @Override
    public String parseError(String query) {
        try {
            Parser.parse(query);
            return null;
        } catch (RuntimeException ex) {
            return ex.getMessage() == null ? ex.toString() : ex.getMessage();
        }
    }

    @Override
    public List<List<LabelMatcher>> selectors(String query) {
        Expr e;
        try {
            e = Parser.parse(query);
        } catch (RuntimeException ex) {
            return null;
        }
        List<List<LabelMatcher>> out = new ArrayList<>();
        collect(e, out);
        return out;
    }

    private static void collect(Expr e, List<List<LabelMatcher>> out) {
        switch (e) {
            case Expr.NumberLiteral n -> { }
            case Expr.StringLiteral s -> { }
            case Expr.VectorSelector v -> out.add(v.matchers());
            case Expr.MatrixSelector m -> out.add(m.selector().matchers());
            case Expr.Subquery s -> collect(s.expr(), out);
            case Expr.Call c -> c.args().forEach(a -> collect(a, out));
            case Expr.Aggregate a -> {
                collect(a.expr(), out);
                if (a.param() != null) {
                    collect(a.param(), out);
                }
            }
            case Expr.Binary b -> {
                collect(b.lhs(), out);
                collect(b.rhs(), out);
            }
            case Expr.Unary u -> collect(u.expr(), out);
            case Expr.Paren p -> collect(p.expr(), out);
        }
    }

    /**
     * {@code e} with {@code @ timeMs} on every selector and outermost subquery that has no {@code @ <time>}
     * ({@code @ start()}/{@code end()} are replaced), as Prometheus' runner does; the inside of a subquery
     * is left as it is (and not searched for time-dependent functions).
     */
    static Expr pin(Expr e, long t, boolean[] unsafe) {
        return switch (e) {
            case Expr.NumberLiteral n -> n;
            case Expr.StringLiteral s -> s;
            case Expr.VectorSelector v -> pinSelector(v, t);
            case Expr.MatrixSelector m -> new Expr.MatrixSelector(pinSelector(m.selector(), t), m.rangeMs(), m.pos());
            case Expr.Subquery s -> s.atKind() == Expr.AtKind.TIMESTAMP ? s
                    : new Expr.Subquery(s.expr(), s.rangeMs(), s.stepMs(), s.offsetMs(), Expr.AtKind.TIMESTAMP, t, s.pos());
            case Expr.Call c -> {
                if (AT_UNSAFE.contains(c.function())) {
                    unsafe[0] = true;
                }
                List<Expr> args = new ArrayList<>(c.args().size());
                for (Expr a : c.args()) {
                    args.add(pin(a, t, unsafe));
                }
                yield new Expr.Call(c.function(), args, c.returnType(), c.pos());
            }
            case Expr.Aggregate a -> new Expr.Aggregate(a.op(), pin(a.expr(), t, unsafe),
                    a.param() == null ? null : pin(a.param(), t, unsafe), a.grouping(), a.without(), a.pos());
            case Expr.Binary b -> new Expr.Binary(b.op(), pin(b.lhs(), t, unsafe), pin(b.rhs(), t, unsafe), b.returnBool(),
                    b.matching(), b.pos());
            case Expr.Unary u -> new Expr.Unary(u.negate(), pin(u.expr(), t, unsafe), u.pos());
            case Expr.Paren p -> new Expr.Paren(pin(p.expr(), t, unsafe), p.pos());
        };
    }

    private static Expr.VectorSelector pinSelector(Expr.VectorSelector v, long t) {
        if (v.atKind() == Expr.AtKind.TIMESTAMP) {
            return v;
        }
        return new Expr.VectorSelector(v.name(), v.matchers(), v.offsetMs(), Expr.AtKind.TIMESTAMP, t, v.pos());
    }
}
