package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.Supplier;

/**
 * {@code GET /-/healthy} (the process answers) and {@code GET /-/ready} (it ingests: WALs replayed
 * and partitions assigned), with Prometheus' wording. Both read published flags only.
 */
public final class HealthRoutes {
    public static final String HEALTHY_PATH = "/-/healthy";
    public static final String READY_PATH = "/-/ready";

    private HealthRoutes() {
    }

    /**
     * Adds both routes.
     *
     * @param notReadyReason null when ready, else why not (e.g. "replaying the write-ahead logs"); any thread
     */
    public static Router addTo(Router router, Supplier<String> notReadyReason) {
        return router
                .get(HEALTHY_PATH, request -> Reply.text(HttpResponseStatus.OK, "Sluice is Healthy."))
                .get(READY_PATH, request -> {
                    String reason = notReadyReason.get();
                    return reason == null
                            ? Reply.text(HttpResponseStatus.OK, "Sluice is Ready.")
                            : Reply.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "Sluice is not ready: " + reason);
                });
    }
}
