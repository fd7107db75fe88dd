package io.sluice.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.sluice.core.head.Head;

/**
 * The start-up WAL replay as gauges, for a scrape that watches a restart: how much of the WAL
 * bytes the shards have replayed ({@code sluice_replay_progress_ratio}, 0..1; 1 once every shard is
 * done) and the bytes themselves. Samples and records replayed are counters bound by
 * {@link HeadMetrics} ({@code sluice_replay_samples_total}, {@code sluice_replay_records_total}).
 * Functions over {@link io.sluice.core.head.replay.ReplayProgress}, which any thread may read.
 */
public final class ReplayMetrics implements MeterBinder {
    private final Head head;

    public ReplayMetrics(Head head) {
        this.head = head;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("sluice.replay.progress.ratio", head, ReplayMetrics::ratio).strongReference(true)
                .description("Share of the WAL bytes replayed at start (1 when every shard is done)").register(registry);
        Gauge.builder("sluice.replay.wal", head, Head::replayTotalBytes).strongReference(true).baseUnit("bytes")
                .description("WAL bytes the shards replay at start").register(registry);
        Gauge.builder("sluice.replay.replayed", head, Head::replayedBytes).strongReference(true).baseUnit("bytes")
                .description("WAL bytes replayed so far").register(registry);
    }

    /** 0..1; 1 once replay is over (also for an empty WAL). Any thread. */
    public static double ratio(Head head) {
        if (head.isReplayDone()) {
            return 1.0;
        }
        long total = head.replayTotalBytes();
        return total == 0 ? 0.0 : Math.min(1.0, (double) head.replayedBytes() / total);
    }
}
