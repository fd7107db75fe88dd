package io.sluice.server.query;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.sluice.core.head.Head;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.http.MalformedRequestException;
import io.sluice.server.http.Reply;
import io.sluice.server.http.Route;
import io.sluice.server.http.Router;
import java.util.function.LongSupplier;

/**
 * The Prometheus-compatible read side over the head: export, labels, label values, series, query,
 * query_range and remote-read, and what Grafana's Prometheus data source asks besides (buildinfo,
 * metadata, query_exemplars, format_query, parse_query: {@link PromqlToolRoutes}; buildinfo and metadata
 * answer GET only, as Prometheus'). Every route is blocking (runs on the HTTP worker threads, never the
 * event loop): each reads the shards' series through {@link Head#query}, which takes a consistent
 * snapshot of each series while ingestion runs. Each request is timed
 * ({@code sluice_query_duration_seconds{endpoint}}); bad parameters count as
 * {@code sluice_query_rejected_total{reason="bad_data"}}.
 *
 * <p>Until every shard has loaded its checkpoint and replayed its WAL ({@link Head#isReplayDone()}),
 * every route answers 503 {@code unavailable}: the head holds only part of its data then, and an answer
 * would silently miss samples (after a restart a dashboard would show gaps that are not there).
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
        QueryContext context = new QueryContext(head, options, metrics);
        ExportRoute export = new ExportRoute(context);
        MetadataRoutes metadata = new MetadataRoutes(context);
        PromqlRoutes query = new PromqlRoutes(context, clockMs);
        getAndPost(router, ExportRoute.PATH, loaded(head, timed(metrics, "export", export)));
        getAndPost(router, MetadataRoutes.LABELS_PATH, loaded(head, timed(metrics, "labels", metadata::labels)));
        getAndPost(router, MetadataRoutes.LABEL_VALUES_PATH,
                loaded(head, timed(metrics, "label_values", metadata::labelValues)));
        getAndPost(router, MetadataRoutes.SERIES_PATH, loaded(head, timed(metrics, "series", metadata::series)));
        getAndPost(router, PromqlRoutes.QUERY_PATH, loaded(head, timed(metrics, "query", query::instant)));
        getAndPost(router, PromqlRoutes.QUERY_RANGE_PATH, loaded(head, timed(metrics, "query_range", query::range)));
        PromqlToolRoutes tools = new PromqlToolRoutes();
        router.blocking(HttpMethod.GET, PromqlToolRoutes.BUILDINFO_PATH, tools::buildInfo);
        router.blocking(HttpMethod.GET, PromqlToolRoutes.METADATA_PATH, timed(metrics, "metadata", tools::metadata));
        getAndPost(router, PromqlToolRoutes.EXEMPLARS_PATH, timed(metrics, "query_exemplars", tools::exemplars));
        getAndPost(router, PromqlToolRoutes.FORMAT_PATH, timed(metrics, "format_query", tools::format));
        getAndPost(router, PromqlToolRoutes.PARSE_PATH, timed(metrics, "parse_query", tools::parse));
        router.blocking(HttpMethod.POST, RemoteReadRoute.PATH,
                loaded(head, timed(metrics, "read", new RemoteReadRoute(context))));
        return router;
    }

    /** 503 while the head is still loading (see the class comment), else {@code route}. */
    static Route loaded(Head head, Route route) {
        return request -> {
            if (!head.isReplayDone()) {
                throw ApiError.unavailable("the head is still loading its checkpoints and write-ahead logs; see /-/ready");
            }
            return route.handle(request);
        };
    }

    private static void getAndPost(Router router, String path, Route route) {
        router.blocking(HttpMethod.GET, path, route).blocking(HttpMethod.POST, path, route);
    }

    /** Times the request (a streamed one until its body is written) and counts 400s as bad_data. */
    static Route timed(QueryMetrics metrics, String endpoint, Route route) {
        return request -> {
            long t0 = System.nanoTime();
            Reply reply;
            try {
                try {
                    reply = route.handle(request);
                } catch (MalformedRequestException e) {
                    throw ApiError.badData(e.getMessage());
                }
            } catch (ApiError e) {
                if (e.errorType().equals("bad_data")) {
                    metrics.rejected(QueryMetrics.REASON_BAD_DATA);
                }
                metrics.record(endpoint, t0);
                throw e;
            } catch (Exception e) {
                metrics.record(endpoint, t0);
                throw e;
            }
            if (!reply.isStreamed()) {
                metrics.record(endpoint, t0);
                return reply;
            }
            return Reply.streamed(reply.contentType(), reply.headers(), out -> {
                try {
                    reply.stream().writeTo(out);
                } finally {
                    metrics.record(endpoint, t0);
                }
            });
        };
    }
}
