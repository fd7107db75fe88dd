package io.sluice.server.store;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The StoreAPI server's meters: {@code sluice_storeapi_requests_total{method}},
 * {@code sluice_storeapi_rejected_total{reason}}, {@code sluice_storeapi_series_total} and
 * {@code sluice_storeapi_samples_total} (what {@code Series} sent). Any thread.
 */
final class StoreApiMetrics {
    static final String REASON_MAX_SERIES = "max_series";
    static final String REASON_MAX_SAMPLES = "max_samples";
    static final String REASON_BAD_REQUEST = "bad_request";
    static final String REASON_NOT_READY = "not_ready";

    private final MeterRegistry registry;
    private final Map<String, Counter> requests = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejections = new ConcurrentHashMap<>();
    private final Counter series;
    private final Counter samples;

    StoreApiMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.series = Counter.builder("sluice.storeapi.series").description("Series sent by StoreAPI Series calls")
                .register(registry);
        this.samples = Counter.builder("sluice.storeapi.samples")
                .description("Samples in the chunks sent by StoreAPI Series calls").register(registry);
    }

    void request(String method) {
        requests.computeIfAbsent(method, m -> Counter.builder("sluice.storeapi.requests").tag("method", m)
                .description("StoreAPI gRPC calls, by method").register(registry)).increment();
    }

    void rejected(String reason) {
        rejections.computeIfAbsent(reason, r -> Counter.builder("sluice.storeapi.rejected").tag("reason", r)
                .description("StoreAPI gRPC calls refused, by reason").register(registry)).increment();
    }

    void served(long seriesCount, long sampleCount) {
        series.increment(seriesCount);
        samples.increment(sampleCount);
    }
}
