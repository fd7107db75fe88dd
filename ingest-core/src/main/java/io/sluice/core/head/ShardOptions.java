package io.sluice.core.head;

import io.sluice.core.chunk.ChunkCutPolicy;
import java.nio.file.Path;

/**
 * Configuration of one shard.
 *
 * @param walDirectory       the shard's own WAL directory
 * @param walSegmentBytes    WAL segment size (128 MiB in production; small in tests)
 * @param walSyncIntervalMs  group commit: the WAL is forced at most this often (and on close)
 * @param queueBatches       batches in flight per shard (its queue and pool); with
 *                           {@code batchBytes} this bounds the memory between consumers and shard
 * @param batchBytes         capacity of one batch
 * @param maxSeries          cardinality limit; new series beyond it are rejected and counted
 * @param chunkRangeMs       chunks never span a multiple of this (Prometheus' 2 h block range)
 * @param maxBatchesPerWork  batches one {@code doWork()} applies before it returns (fairness)
 */
public record ShardOptions(Path walDirectory, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                           int batchBytes, int maxSeries, long chunkRangeMs, int maxBatchesPerWork) {
    public static final long DEFAULT_WAL_SEGMENT_BYTES = 128L << 20;

    public ShardOptions {
        if (queueBatches < 2 || batchBytes < 1024 || maxSeries < 1 || chunkRangeMs < 1 || maxBatchesPerWork < 1
                || walSyncIntervalMs < 0 || walSegmentBytes < 64 * 1024) {
            throw new IllegalArgumentException("invalid shard options: " + this);
        }
    }

    /** Production defaults for a shard whose WAL lives in {@code walDirectory}. */
    public static ShardOptions defaults(Path walDirectory) {
        return new ShardOptions(walDirectory, DEFAULT_WAL_SEGMENT_BYTES, 100, 8, 256 * 1024, 2_000_000,
                ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS, 4);
    }

    public ShardOptions withWalSegmentBytes(long bytes) {
        return new ShardOptions(walDirectory, bytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeries, chunkRangeMs, maxBatchesPerWork);
    }

    public ShardOptions withMaxSeries(int series) {
        return new ShardOptions(walDirectory, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, series, chunkRangeMs, maxBatchesPerWork);
    }

    public ShardOptions withQueue(int batches, int bytesPerBatch) {
        return new ShardOptions(walDirectory, walSegmentBytes, walSyncIntervalMs, batches, bytesPerBatch, maxSeries, chunkRangeMs, maxBatchesPerWork);
    }

    public ShardOptions withWalSyncIntervalMs(long ms) {
        return new ShardOptions(walDirectory, walSegmentBytes, ms, queueBatches, batchBytes, maxSeries, chunkRangeMs, maxBatchesPerWork);
    }
}
