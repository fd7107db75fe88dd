package io.sluice.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.core.head.Head;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice_batch_durable_seconds}: for every batch, the time from the consumer handing it to a
 * shard (queue-in) to the WAL sync that made it durable — queue wait, apply and group commit
 * together, the latency a sample has before Sluice can commit its Kafka offset. One timer over all
 * shards, recorded by the shard threads once per batch (a clock read and an array store per batch,
 * nothing per sample); exported as a histogram plus p50/p99/p999 over a sliding window.
 */
public final class BatchLatencyMetrics {
    public static final String NAME = "sluice.batch.durable";
    /** The server's window for the client-side percentiles (Micrometer's default). */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

    private BatchLatencyMetrics() {
    }

    /**
     * Registers the timer and makes every shard of {@code head} record into it. Call before or after
     * {@link Head#start()}; batches applied before the call are not measured.
     *
     * @param window how long a recorded latency counts in the percentiles (a benchmark passes its run length)
     */
    public static Timer bind(Head head, MeterRegistry registry, Duration window) {
        Timer timer = Timer.builder(NAME)
                .description("Time from a batch entering a shard's queue to the WAL sync that made it durable")
                .publishPercentiles(0.5, 0.99, 0.999)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .distributionStatisticExpiry(window)
                .distributionStatisticBufferLength(window.compareTo(DEFAULT_WINDOW) > 0 ? 1 : 3)
                .register(registry);
        for (int i = 0; i < head.shardCount(); i++) {
            head.shard(i).onBatchDurable(nanos -> timer.record(nanos, TimeUnit.NANOSECONDS));
        }
        return timer;
    }
}
