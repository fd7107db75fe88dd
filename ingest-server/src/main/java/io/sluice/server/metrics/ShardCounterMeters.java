package io.sluice.server.metrics;

import io.micrometer.core.instrument.Tags;
import io.sluice.core.head.stats.ShardStats.Counter;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * Which Prometheus counter each {@link Counter} of a shard becomes: the Micrometer name (exported
 * with {@code _total}), its tags, and whether it is per shard (tag {@code shard}) or summed over
 * shards. {@code sluice_samples_rejected_total} is summed: the consumers count their own rejections
 * (bad labels, ...) under the same name with a {@code reason} tag only, and Prometheus needs one
 * tag set per name. Counters the WAL's own metrics already
 * export are listed in {@link #COVERED_ELSEWHERE}; a test checks every counter is one or the other,
 * so a counter added to ShardStats cannot go unexported unnoticed.
 */
final class ShardCounterMeters {
    /** A counter's metric: {@code name} in Micrometer's dotted form, extra {@code tags}, and its help text. */
    record Meter(String name, Tags tags, boolean perShard, String description) {
    }

    /**
     * WAL_SYNCS counts published durable points; sluice_wal_syncs_total (WalMetrics) counts the fsyncs
     * themselves. APPLY_NANOS is the sum of the {@code sluice_shard_apply_seconds} timer (with
     * BATCHES_APPLIED as its count), bound in {@link HeadMetrics}.
     */
    static final Set<Counter> COVERED_ELSEWHERE = Set.of(Counter.WAL_SYNCS, Counter.APPLY_NANOS);

    static final Map<Counter, Meter> METERS = new EnumMap<>(Counter.class);

    static {
        put(Counter.SAMPLES_APPENDED, "sluice.samples.appended", Tags.empty(), "Samples appended to the head and its WAL");
        put(Counter.SAMPLES_DUPLICATE, "sluice.samples.duplicate", Tags.empty(),
                "Samples equal to a sample their series holds (same timestamp and value), ignored as Prometheus does");
        put(Counter.SAMPLES_OUT_OF_ORDER, "sluice.samples.out.of.order", Tags.empty(),
                "Samples older than their series' newest stored inside head.out-of-order-window (also counted as appended)");
        summed(Counter.SAMPLES_TOO_OLD, "sluice.samples.rejected", Tags.of("reason", "too_old"),
                "Samples the head rejected, by reason");
        summed(Counter.SAMPLES_DUPLICATE_TIMESTAMP, "sluice.samples.rejected", Tags.of("reason", "duplicate_timestamp"),
                "Samples the head rejected, by reason");
        summed(Counter.SAMPLES_SERIES_LIMIT, "sluice.samples.rejected", Tags.of("reason", "series_limit"),
                "Samples the head rejected, by reason");
        put(Counter.SAMPLES_ALREADY_APPLIED, "sluice.samples.already.applied", Tags.empty(),
                "Samples of re-delivered Kafka records at or below the shard's watermark, skipped (exactly-once)");
        // Not "sluice.series.created": the Prometheus client reserves the _created suffix (OpenMetrics
        // creation timestamps) and would export sluice_series_total.
        put(Counter.SERIES_CREATED, "sluice.series.creations", Tags.empty(), "Series created");
        put(Counter.SERIES_REJECTED_LIMIT, "sluice.series.rejected", Tags.of("reason", "series_limit"),
                "New series rejected, by reason");
        put(Counter.BATCHES_APPLIED, "sluice.batches.applied", Tags.empty(), "Batches a shard applied");
        put(Counter.REPLAYED_RECORDS, "sluice.replay.records", Tags.empty(), "WAL records replayed at start");
        put(Counter.REPLAYED_SAMPLES, "sluice.replay.samples", Tags.empty(), "Samples replayed from the WAL at start");
        put(Counter.RESTORED_SAMPLES, "sluice.restore.samples", Tags.empty(),
                "Samples loaded at start from checkpoints and chunk files");
        put(Counter.REPLAY_MALFORMED_RECORDS, "sluice.replay.malformed.records", Tags.empty(),
                "WAL records replay could not decode (their samples are consumed again from Kafka)");
        put(Counter.CHUNKS_EXPIRED, "sluice.chunks.expired", Tags.empty(),
                "Closed chunks dropped at checkpoints because they are older than storage.retention");
        put(Counter.CHUNKS_PERSISTED, "sluice.chunks.persisted", Tags.empty(), "Full chunks written to the shard's chunk files");
        put(Counter.CHUNK_WRITE_FAILURES, "sluice.chunk.write.failures", Tags.empty(),
                "Full chunks a chunk file could not take when cut (a full disk); written at the next checkpoint");
        put(Counter.CHECKPOINTS_WRITTEN, "sluice.checkpoints.written", Tags.empty(), "Checkpoints written");
        put(Counter.CHECKPOINT_FAILURES, "sluice.checkpoint.failures", Tags.empty(),
                "Checkpoints that could not be written (the WAL is kept; retried at the next interval)");
        put(Counter.CHECKPOINTS_DAMAGED, "sluice.checkpoints.damaged", Tags.empty(),
                "Checkpoints found damaged at start and discarded");
        put(Counter.CHUNKS_DAMAGED, "sluice.chunks.damaged", Tags.empty(), "Chunks found damaged or missing in the chunk files at start");
        put(Counter.DATA_DISCARDED, "sluice.shard.data.discarded", Tags.empty(),
                "Starts at which a shard discarded its persisted data and consumed its partitions again from Kafka");
        put(Counter.SERIES_EVICTED, "sluice.series.evicted", Tags.empty(),
                "Series removed at checkpoints because their newest sample is older than storage.retention");
        put(Counter.SERIES_IDLE_CUT, "sluice.series.idle.cut", Tags.empty(),
                "Idle series whose open chunk was cut to the chunk files at a checkpoint (still queryable)");
    }

    private ShardCounterMeters() {
    }

    private static void put(Counter counter, String name, Tags tags, String description) {
        METERS.put(counter, new Meter(name, tags, true, description));
    }

    private static void summed(Counter counter, String name, Tags tags, String description) {
        METERS.put(counter, new Meter(name, tags, false, description));
    }
}
