package io.sluice.core.head.checkpoint;

import java.io.IOException;

/**
 * The shard as its checkpoints see it: the watermarks a checkpoint writes, the WAL sync it waits
 * for, and what loading one creates besides the series store. Implemented by the shard for
 * {@link Checkpoints}; shard thread only.
 */
public interface CheckpointTarget {
    /** The shard's index (file headers, log lines). */
    int index();

    /** Streams the shard has a slot for (ids 0..n-1). */
    int knownStreams();

    /** The highest offset of {@code streamId} the shard applied, -1 if none. */
    long appliedOffset(int streamId);

    /** Forces the WAL and publishes the durable watermarks. */
    void sync() throws IOException;

    /** Restore: the checkpoint holds this many series ids; sizes the registry once for them. */
    void expectSeries(int series);

    /** Restore: creates a series in the store, the registry and the index; returns its id. */
    int createSeries(long hash, byte[] labels, int offset, int length);

    /** Restore: takes the id of a series evicted before the checkpoint (ids are dense, never reused). */
    void createEvictedPlaceholder();

    /** Restore: a watermark read from the checkpoint. */
    void restoreWatermark(int streamId, long offset);
}
