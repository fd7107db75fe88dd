package io.sluice.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.sluice.core.head.Head;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.TestHeads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The head's metrics, scraped from a real head with real shard threads and WALs. */
class HeadMetricsTest {
    private static final int SERIES = 50;

    @TempDir
    Path dir;
    private Head head;
    private ProcessMetrics metrics;

    @BeforeEach
    void start() throws IOException {
        head = new Head(TestHeads.options(dir, 2), new StreamRegistry(), new MemoryAccounting());
        metrics = new ProcessMetrics();
        new HeadMetrics(head).bindTo(metrics.registry());
        head.start();
    }

    @AfterEach
    void stop() {
        head.close();
        metrics.close();
    }

    private double sample(String metric, String... labels) {
        return io.sluice.server.TestHttp.sample(metrics.registry().scrape(), metric, labels);
    }

    @Test
    void countersPerShardSumToWhatWasAppended() {
        for (long offset = 0; offset < 3; offset++) {
            TestHeads.feed(head, "m", 0, offset, SERIES, 1_000 * (offset + 1));
        }
        TestHeads.awaitDurable(head, "m", 0, 2);
        assertThat(sample("sluice_head_out_of_order_bytes")).as("in-order samples only").isZero();
        assertThat(sample("sluice_head_out_of_order_series")).isZero();
        TestHeads.feed(head, "m", 0, 3, SERIES, 500); // older than each series' last sample: stored out of order
        TestHeads.feed(head, "m", 0, 4, SERIES, 500 - ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS); // beyond the window: too old
        TestHeads.feed(head, "m", 0, 5, SERIES, 500); // a repeat of a stored out-of-order sample: duplicate
        TestHeads.awaitDurable(head, "m", 0, 5);

        assertThat(sample("sluice_samples_appended_total")).isEqualTo(4.0 * SERIES);
        assertThat(sample("sluice_samples_appended_total", "shard=\"0\"")
                + sample("sluice_samples_appended_total", "shard=\"1\"")).isEqualTo(4.0 * SERIES);
        assertThat(HeadTotals.sum(head, ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(4L * SERIES);
        assertThat(sample("sluice_samples_out_of_order_total")).isEqualTo(SERIES);
        assertThat(sample("sluice_head_out_of_order_series")).isEqualTo(SERIES);
        assertThat(sample("sluice_head_out_of_order_bytes")).isEqualTo(head.shard(0).outOfOrderBytes()
                + head.shard(1).outOfOrderBytes()).isGreaterThan(8.0 * SERIES);
        assertThat(sample("sluice_samples_duplicate_total")).isEqualTo(SERIES);
        assertThat(sample("sluice_samples_rejected_total", "reason=\"too_old\"")).isEqualTo(SERIES);
        assertThat(sample("sluice_samples_rejected_total", "reason=\"duplicate_timestamp\"")).isZero();
        assertThat(sample("sluice_samples_rejected_total", "reason=\"series_limit\"")).isZero();
        assertThat(sample("sluice_series_active")).isEqualTo(SERIES);
        assertThat(sample("sluice_series_creations_total")).isEqualTo(SERIES);
        assertThat(sample("sluice_batches_applied_total")).isGreaterThanOrEqualTo(8.0);
        assertThat(sample("sluice_queue_depth", "shard=\"1\"")).isGreaterThanOrEqualTo(0.0);
        assertThat(sample("sluice_replay_done")).isEqualTo(2.0);
        // The append stage: one timing per applied batch, real time spent (the head runs on the system clock).
        assertThat(sample("sluice_shard_apply_seconds_count")).isEqualTo(sample("sluice_batches_applied_total"));
        assertThat(sample("sluice_shard_apply_seconds_sum")).isPositive();
        // Queue-in to WAL-durable: every batch is durable once the last offset is, each timed once.
        assertThat(sample("sluice_batch_durable_seconds_count")).isEqualTo(sample("sluice_batches_applied_total"));
        assertThat(sample("sluice_batch_durable_seconds_sum")).isPositive();
        assertThat(sample("sluice_batch_durable_seconds_bucket", "le=\"+Inf\"")).isEqualTo(sample("sluice_batch_durable_seconds_count"));
        ValueAtPercentile[] p = metrics.registry().get(BatchLatencyMetrics.NAME).timer().takeSnapshot().percentileValues();
        assertThat(p).extracting(ValueAtPercentile::percentile).containsExactly(0.5, 0.99, 0.999);
        assertThat(p[0].value(TimeUnit.NANOSECONDS)).isPositive().isLessThanOrEqualTo(p[1].value(TimeUnit.NANOSECONDS));
    }

    @Test
    void walMemoryAndJvmFigures() {
        TestHeads.feed(head, "m", 0, 0, SERIES, 1_000);
        TestHeads.awaitDurable(head, "m", 0, 0);
        assertThat(sample("sluice_wal_bytes_written_total")).isEqualTo(HeadTotals.walBytesWritten(head)).isPositive();
        assertThat(sample("sluice_wal_records_total")).isPositive();
        assertThat(sample("sluice_wal_syncs_total")).isPositive();
        assertThat(sample("sluice_wal_fsync_seconds_count")).isEqualTo(sample("sluice_wal_syncs_total"));
        assertThat(sample("sluice_wal_fsync_seconds_sum")).isPositive();
        assertThat(sample("sluice_wal_fsync_max_seconds")).isPositive();
        assertThat(sample("sluice_wal_corruptions_total")).isZero();
        assertThat(sample("sluice_wal_mapped_bytes")).isPositive();
        assertThat(sample("sluice_wal_segment_creations_total")).isGreaterThanOrEqualTo(2.0);
        assertThat(sample("sluice_offheap_bytes", "tag=\"chunks\"")).isPositive();
        assertThat(sample("sluice_offheap_bytes", "tag=\"series\"")).isPositive();
        assertThat(sample("sluice_chunk_bytes")).isPositive();
        assertThat(sample("jvm_memory_used_bytes", "area=\"heap\"")).isPositive();
        assertThat(sample("jvm_threads_live_threads")).isPositive();
        assertThat(metrics.registry().scrape()).contains("process_cpu_usage").contains("jvm_gc_")
                .contains("process_uptime_seconds");
    }

    @Test
    void everyShardCounterIsExportedOrCoveredElsewhere() {
        Set<ShardStats.Counter> covered = EnumSet.noneOf(ShardStats.Counter.class);
        covered.addAll(ShardCounterMeters.METERS.keySet());
        covered.addAll(ShardCounterMeters.COVERED_ELSEWHERE);
        assertThat(covered).containsExactlyInAnyOrder(ShardStats.Counter.values());
        assertThat(ShardCounterMeters.METERS.keySet()).doesNotContainAnyElementsOf(ShardCounterMeters.COVERED_ELSEWHERE);
    }
}
