package io.sluice.core.head.stats;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A shard's counters. Written by the shard thread only (release stores, no read-modify-write
 * atomics on the hot path), read by any thread (metrics, tests). Names follow the metrics they
 * become: {@code sluice_samples_rejected_total{reason="too_old"}} and so on.
 */
public final class ShardStats {
    public enum Counter {
        SAMPLES_APPENDED,
        /** Same timestamp and same value as a sample the series holds: ignored, as Prometheus does. */
        SAMPLES_DUPLICATE,
        /** Older than their series' newest and than the out-of-order window of the shard's newest sample: rejected. */
        SAMPLES_TOO_OLD,
        /** Older than their series' newest, inside the out-of-order window: stored (also counted in SAMPLES_APPENDED). */
        SAMPLES_OUT_OF_ORDER,
        SAMPLES_DUPLICATE_TIMESTAMP,
        /** Samples of series rejected by the cardinality limit. */
        SAMPLES_SERIES_LIMIT,
        /** Samples of Kafka records at or below the shard's watermark (already applied before a restart). */
        SAMPLES_ALREADY_APPLIED,
        SERIES_CREATED,
        SERIES_REJECTED_LIMIT,
        BATCHES_APPLIED,
        WAL_SYNCS,
        REPLAYED_RECORDS,
        REPLAYED_SAMPLES,
        /** Samples loaded at start from a checkpoint and its chunk files (not replayed from the WAL). */
        RESTORED_SAMPLES,
        /** WAL records that replay could not decode (their samples are re-consumed from Kafka). */
        REPLAY_MALFORMED_RECORDS,
        /** Closed chunks dropped at checkpoints because their last sample is older than the retention. */
        CHUNKS_EXPIRED,
        /** Cut chunks written to the shard's chunk files. */
        CHUNKS_PERSISTED,
        /** Cut chunks a chunk file could not take when they were cut (a full disk); written at the next checkpoint. */
        CHUNK_WRITE_FAILURES,
        /** Checkpoints written. */
        CHECKPOINTS_WRITTEN,
        /** Checkpoints that could not be written (the WAL is kept, nothing is lost; retried at the next interval). */
        CHECKPOINT_FAILURES,
        /** Checkpoints found damaged at start (bad CRC, truncated, or referencing a damaged chunk) and discarded. */
        CHECKPOINTS_DAMAGED,
        /** Chunks found damaged or missing in the chunk files at start. */
        CHUNKS_DAMAGED,
        /** Starts at which the shard discarded its persisted data and asked for everything again from Kafka. */
        DATA_DISCARDED,
        /** Series removed at checkpoints because their newest sample is older than the retention. */
        SERIES_EVICTED,
        /** Idle series whose open chunk was cut to the chunk files at a checkpoint (they stay queryable). */
        SERIES_IDLE_CUT,
        /** Nanoseconds spent applying batches (the append stage: lookup, chunks, WAL records), by the shard's clock. */
        APPLY_NANOS
    }

    private static final Counter[] COUNTERS = Counter.values();
    private final AtomicLongArray values = new AtomicLongArray(COUNTERS.length);

    public void add(Counter counter, long delta) {
        int i = counter.ordinal();
        values.setRelease(i, values.getPlain(i) + delta); // single writer
    }

    public void increment(Counter counter) {
        add(counter, 1);
    }

    /** Current value; any thread. */
    public long get(Counter counter) {
        return values.getAcquire(counter.ordinal());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ShardStats{");
        for (Counter c : COUNTERS) {
            long v = get(c);
            if (v != 0) {
                sb.append(c).append('=').append(v).append(' ');
            }
        }
        return sb.append('}').toString();
    }
}
