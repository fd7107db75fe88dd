package io.sluice.core.head;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A shard's counters. Written by the shard thread only (release stores, no read-modify-write
 * atomics on the hot path), read by any thread (metrics, tests). Names follow the metrics they
 * become: {@code sluice_samples_rejected_total{reason="out_of_order"}} and so on.
 */
public final class ShardStats {
    public enum Counter {
        SAMPLES_APPENDED,
        /** Same timestamp and same value as the series' last sample: ignored, as Prometheus does. */
        SAMPLES_DUPLICATE,
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
        /** WAL records that replay could not decode (their samples are re-consumed from Kafka). */
        REPLAY_MALFORMED_RECORDS,
        /** Chunks dropped because a series' chunk list was full (head holds ~170 chunks per series). */
        CHUNKS_DROPPED,
        /** Nanoseconds spent applying batches (the append stage: lookup, chunks, WAL records), by the shard's clock. */
        APPLY_NANOS
    }

    private static final Counter[] COUNTERS = Counter.values();
    private final AtomicLongArray values = new AtomicLongArray(COUNTERS.length);

    void add(Counter counter, long delta) {
        int i = counter.ordinal();
        values.setRelease(i, values.getPlain(i) + delta); // single writer
    }

    void increment(Counter counter) {
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
