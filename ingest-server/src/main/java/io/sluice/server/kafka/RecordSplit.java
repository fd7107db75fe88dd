package io.sluice.server.kafka;

import java.util.Arrays;

/**
 * Bookkeeping of one Kafka record that {@link RecordRouter} hands over in several batches of a shard
 * because its samples for that shard do not fit one batch. Per shard it counts the record's samples
 * already in handed-over batches ({@code handedOver}), so that when the record must be decoded again
 * (a shard had no free batch: {@link RecordRouter#BLOCKED}) exactly those samples are skipped and
 * nothing reaches a shard twice. Decoding is deterministic, so the n-th sample of the record for a
 * shard is the same sample on every pass.
 *
 * <p>Owned by the router's consumer thread.
 */
final class RecordSplit {
    private final long[] handedOver;   // per shard: samples of the record in batches already submitted
    private final long[] inBatch;      // per shard: samples of the record in the open batch (this pass)
    private final long[] seen;         // per shard: samples of the record met in this pass
    private boolean active;
    private int streamId;
    private long offset;

    RecordSplit(int shards) {
        handedOver = new long[shards];
        inBatch = new long[shards];
        seen = new long[shards];
    }

    /** True while a record is being split (from {@link #begin} until {@link #clear}). */
    boolean active() {
        return active;
    }

    /** True if {@code (streamId, offset)} is the split record, decoded again after a BLOCKED pass. */
    boolean resumes(int streamId, long offset) {
        return active && this.streamId == streamId && this.offset == offset;
    }

    void begin(int streamId, long offset) {
        clear();
        this.active = true;
        this.streamId = streamId;
        this.offset = offset;
    }

    void clear() {
        active = false;
        Arrays.fill(handedOver, 0);
    }

    /** Before each decoding pass. */
    void startPass() {
        Arrays.fill(inBatch, 0);
        Arrays.fill(seen, 0);
    }

    /** Counts a sample of the record for {@code shard}; true if an earlier pass already handed it over. */
    boolean skip(int shard) {
        return seen[shard]++ < handedOver[shard];
    }

    /** A sample of the record went into {@code shard}'s open batch. */
    void written(int shard) {
        inBatch[shard]++;
    }

    /** {@code shard}'s open batch, with the record's first part, is being submitted. */
    void handOver(int shard) {
        handedOver[shard] += inBatch[shard];
        inBatch[shard] = 0;
    }
}
