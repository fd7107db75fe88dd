package io.sluice.core.head;

import io.sluice.core.chunk.ChunkCutPolicy;
import java.nio.file.Path;

/**
 * Configuration of the head: how many shards, where their WALs live, and the per-shard options.
 *
 * @param dataDirectory the head's directory; shard {@code i} keeps its WAL in {@code shard-i/wal}
 * @param shards        shard workers (threads); default one per core
 */
public record HeadOptions(Path dataDirectory, int shards, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                          int batchBytes, int maxSeriesPerShard, long chunkRangeMs) {
    public HeadOptions {
        if (shards < 1 || shards > 1024) {
            throw new IllegalArgumentException("shards must be 1..1024, not " + shards);
        }
    }

    public static HeadOptions defaults(Path dataDirectory) {
        return new HeadOptions(dataDirectory, Runtime.getRuntime().availableProcessors(), ShardOptions.DEFAULT_WAL_SEGMENT_BYTES,
                100, 8, 256 * 1024, 2_000_000, ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS);
    }

    public HeadOptions withShards(int n) {
        return new HeadOptions(dataDirectory, n, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs);
    }

    public HeadOptions withWalSegmentBytes(long bytes) {
        return new HeadOptions(dataDirectory, shards, bytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs);
    }

    public HeadOptions withQueue(int batches, int bytesPerBatch) {
        return new HeadOptions(dataDirectory, shards, walSegmentBytes, walSyncIntervalMs, batches, bytesPerBatch, maxSeriesPerShard, chunkRangeMs);
    }

    public HeadOptions withMaxSeriesPerShard(int n) {
        return new HeadOptions(dataDirectory, shards, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, n, chunkRangeMs);
    }

    ShardOptions shard(int index) {
        return new ShardOptions(dataDirectory.resolve("shard-" + index).resolve("wal"), walSegmentBytes, walSyncIntervalMs,
                queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs, 4);
    }
}
