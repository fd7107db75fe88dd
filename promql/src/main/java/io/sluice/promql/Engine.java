package io.sluice.promql;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.eval.Evaluator;
import io.sluice.promql.storage.Queryable;

/**
 * The PromQL engine: parses a query and evaluates it over a {@link Queryable}, instantly or over a
 * range of steps. Thread-safe; each query runs on the caller's thread.
 */
public final class Engine {
    private final EngineOptions options;

    public Engine(EngineOptions options) {
        this.options = options;
    }

    public EngineOptions options() {
        return options;
    }

    /** Parses a query (a {@link ParseException} with Prometheus' message when it does not parse). */
    public Expr parse(String query) {
        return io.sluice.promql.parse.Parser.parse(query);
    }

    /** An instant query at {@code timeMs}; {@code lookbackDeltaMs} 0 uses the engine's default. */
    public QueryResult instant(Queryable queryable, String query, long timeMs, long lookbackDeltaMs, QueryLimits limits) {
        return instant(queryable, parse(query), timeMs, lookbackDeltaMs, limits);
    }

    public QueryResult instant(Queryable queryable, Expr expr, long timeMs, long lookbackDeltaMs, QueryLimits limits) {
        Evaluator ev = new Evaluator(queryable, lookback(lookbackDeltaMs), limits, timeMs, timeMs, 0, options.delayedNameRemoval());
        return ev.run(expr, timeMs, timeMs, 0, true);
    }

    /** A range query: steps {@code start, start+step, ... <= end}. */
    public QueryResult range(Queryable queryable, String query, long startMs, long endMs, long stepMs, long lookbackDeltaMs,
                             QueryLimits limits) {
        return range(queryable, parse(query), startMs, endMs, stepMs, lookbackDeltaMs, limits);
    }

    public QueryResult range(Queryable queryable, Expr expr, long startMs, long endMs, long stepMs, long lookbackDeltaMs,
                             QueryLimits limits) {
        if (stepMs <= 0) {
            throw new PromQLException(PromQLException.ErrorType.BAD_DATA,
                    "zero or negative query resolution step widths are not accepted. Try a positive integer");
        }
        if (endMs < startMs) {
            throw new PromQLException(PromQLException.ErrorType.BAD_DATA, "end timestamp must not be before start time");
        }
        if ((endMs - startMs) / stepMs > options.maxPointsPerSeries()) {
            throw new PromQLException(PromQLException.ErrorType.BAD_DATA,
                    "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"
                            .replace("11,000", String.format(java.util.Locale.ROOT, "%,d", options.maxPointsPerSeries())));
        }
        if (expr.type() != ValueType.SCALAR && expr.type() != ValueType.VECTOR) {
            throw new PromQLException(PromQLException.ErrorType.BAD_DATA,
                    "invalid expression type \"" + expr.type().documentedName() + "\" for range query, must be Scalar or instant Vector");
        }
        Evaluator ev = new Evaluator(queryable, lookback(lookbackDeltaMs), limits, startMs, endMs, stepMs,
                options.delayedNameRemoval());
        return ev.run(expr, startMs, endMs, stepMs, false);
    }

    private long lookback(long requested) {
        return requested > 0 ? requested : options.lookbackDeltaMs();
    }
}
