package io.sluice.server.query;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.sluice.core.head.Head;
import io.sluice.server.http.Router;
import java.util.function.LongSupplier;

/**
 * The Prometheus-compatible read side over the head: export, labels, series, query, query_range
 * and remote-read. Every route is blocking (runs on the HTTP worker threads, never the event loop):
 * each reads the shards' series through {@link Head#query}, which takes consistent per-series
 * snapshots while ingestion runs.
 */
public final class QueryApi {
    private QueryApi() {
    }

    /**
     * Adds the query routes to {@code router}.
     *
     * @param clockMs the time of an instant query without {@code time} (the wall clock in production)
     */
    public static Router addTo(Router router, Head head, QueryOptions options, MeterRegistry registry, LongSupplier clockMs) {
        QueryMetrics metrics = new QueryMetrics(registry);
        ExportRoute export = new ExportRoute(head, options, metrics);
        return router.blocking(HttpMethod.GET, ExportRoute.PATH, export)
                .blocking(HttpMethod.POST, ExportRoute.PATH, export);
    }
}
