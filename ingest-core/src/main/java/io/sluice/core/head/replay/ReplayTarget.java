package io.sluice.core.head.replay;

/**
 * The shard as its WAL replay sees it: what a SERIES, SAMPLES or OFFSETS record changes besides the
 * series store. Implemented by the shard for {@link ShardReplay}; shard thread only.
 */
public interface ReplayTarget {
    /** The shard's index (for the {@link ReplayListener}). */
    int index();

    /** Creates a series in the store, the registry and the index; returns its id. */
    int createSeries(long hash, byte[] labels, int offset, int length);

    /** An OFFSETS entry read back: {@code streamId}'s applied watermark is at least {@code offset}. */
    void restoreWatermark(int streamId, long offset);

    /** What the WAL holds survived: publishes the applied watermarks as durable. */
    void publishDurable();
}
