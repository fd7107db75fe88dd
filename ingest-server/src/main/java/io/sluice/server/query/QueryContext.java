package io.sluice.server.query;

import io.sluice.core.head.Head;
import io.sluice.server.config.QueryOptions;

/**
 * What every query route reads from: the head, the limits and the meters. Immutable, shared by the
 * routes and their worker threads.
 */
record QueryContext(Head head, QueryOptions options, QueryMetrics metrics) {
    /** A fresh budget for one query. */
    QueryBudget budget() {
        return new QueryBudget(options, metrics);
    }
}
