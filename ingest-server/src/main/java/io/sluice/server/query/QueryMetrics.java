package io.sluice.server.query;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The query API's meters: {@code sluice_query_duration_seconds{endpoint}} (count = queries answered,
 * errors included) and {@code sluice_query_rejected_total{reason}} (queries refused:
 * {@code max_series}, {@code max_samples}, {@code bad_data}; PromQL queries stopped: {@code timeout}, and
 * {@code canceled} when the client disconnected). Thread-safe; meters are registered on
 * first use per tag value, from a fixed set of values.
 */
final class QueryMetrics {
    static final String REASON_MAX_SERIES = "max_series";
    static final String REASON_MAX_SAMPLES = "max_samples";
    static final String REASON_BAD_DATA = "bad_data";
    static final String REASON_TIMEOUT = "timeout";
    static final String REASON_CANCELED = "canceled";
    /** A query that parsed but cannot be evaluated on this data (many-to-many matching, duplicate label sets, info conflicts). */
    static final String REASON_EXECUTION = "execution";

    private final MeterRegistry registry;
    private final Map<String, Timer> durations = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejections = new ConcurrentHashMap<>();

    QueryMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String reason : new String[] {REASON_MAX_SERIES, REASON_MAX_SAMPLES, REASON_BAD_DATA, REASON_TIMEOUT, REASON_CANCELED,
            REASON_EXECUTION}) {
            rejected(reason, 0);
        }
    }

    /** The timer of {@code endpoint} ({@code query}, {@code query_range}, {@code export}, ...). */
    Timer duration(String endpoint) {
        return durations.computeIfAbsent(endpoint, e -> Timer.builder("sluice.query.duration").tag("endpoint", e)
                .description("Time to answer a query API request, by endpoint").register(registry));
    }

    /** Records one request of {@code endpoint} that started at {@code startNanos} ({@link System#nanoTime()}). */
    void record(String endpoint, long startNanos) {
        duration(endpoint).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    void rejected(String reason) {
        rejected(reason, 1);
    }

    private void rejected(String reason, double n) {
        rejections.computeIfAbsent(reason, r -> Counter.builder("sluice.query.rejected").tag("reason", r)
                .description("Query API requests refused, by reason").register(registry)).increment(n);
    }
}
