package io.sluice.promql.script;

import io.sluice.promql.QueryResult;
import io.sluice.promql.storage.Queryable;

/**
 * The engine a test script runs against. A query that cannot be answered throws (a
 * {@link io.sluice.promql.PromQLException} or {@link io.sluice.promql.ParseException}); its message is
 * what {@code expect fail msg:} and {@code regex:} match.
 */
public interface ScriptEngine {
    /** An instant query at {@code timeMs}. */
    QueryResult instant(Queryable storage, String query, long timeMs);

    /** A range query from {@code startMs} to {@code endMs} (inclusive) every {@code stepMs}. */
    QueryResult range(Queryable storage, String query, long startMs, long endMs, long stepMs);

    /**
     * {@code query} with {@code @ timeMs} set on every selector and subquery that has none (Prometheus'
     * runner evaluates each instant test this way too, at other times, and expects the same result), or
     * null when the query contains a function whose value depends on the evaluation time ({@code time()},
     * {@code timestamp()}, the date functions, ...) or the engine cannot rewrite queries.
     */
    default String withAtModifier(String query, long timeMs) {
        return null;
    }

    /**
     * The parse error of {@code query}, or null when it parses (or the engine cannot tell). Prometheus'
     * runner parses every eval's query with the script and rejects a script holding one that does not
     * parse, even under {@code expect fail}; this runner fails such an eval.
     */
    default String parseError(String query) {
        return null;
    }

    /**
     * The label matchers of every series selector in {@code query} (one list per selector), so that the
     * runner can tell which loaded series a query may read; null when unknown (the runner then looks for
     * metric names in the query text).
     */
    default java.util.List<java.util.List<io.sluice.promql.labels.LabelMatcher>> selectors(String query) {
        return null;
    }
}
