package io.sluice.server.http;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * {@code GET /metrics}: the registry in Prometheus text format 0.0.4, or OpenMetrics 1.0 when the
 * scraper's Accept header asks for it (as Prometheus does). A scrape only reads counters and gauges
 * that other threads publish, so it runs on the event loop.
 */
public final class MetricsRoute implements Route {
    public static final String PATH = "/metrics";
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    public MetricsRoute(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Reply handle(FullHttpRequest request) throws IOException {
        String accept = request.headers().get(HttpHeaderNames.ACCEPT, "");
        String contentType = accept.contains("application/openmetrics-text")
                ? OPENMETRICS_TEXT
                : PROMETHEUS_TEXT;
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        registry.scrape(body, contentType);
        return new Reply(HttpResponseStatus.OK, contentType, body.toByteArray());
    }

    /** Adds {@code GET /metrics} to {@code router}. */
    public static Router addTo(Router router, PrometheusMeterRegistry registry) {
        return router.get(PATH, new MetricsRoute(registry));
    }
}
