package io.sluice.core.head;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.shard.ShardOptions;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Configuration of the head: how many shards, where their WALs live, and the per-shard options.
 *
 * @param dataDirectory        the head's directory; shard {@code i} keeps its WAL in {@code shard-i/wal},
 *                             its chunk files in {@code shard-i/chunks} and its checkpoints in {@code shard-i}
 * @param shards               shard workers (threads); default one per core
 * @param checkpointIntervalMs {@code head.checkpoint-interval}: how often each shard checkpoints (0: only on close)
 * @param seriesIdleTimeoutMs  {@code head.series-idle-timeout}: idle series have their open chunk cut to the chunk files at checkpoints; they stay queryable (0: never)
 * @param chunkFileBytes       size of one chunk file
 * @param retentionMs          {@code storage.retention}: closed chunks older than this (sample time, against
 *                             the shard's newest sample) are dropped at checkpoints (0: never)
 * @param outOfOrderWindowMs   {@code head.out-of-order-window}: a sample older than its series' newest is stored if it
 *                             is at most this much older than its shard's newest sample, else rejected as too old (0: none)
 */
public record HeadOptions(Path dataDirectory, int shards, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                          int batchBytes, int maxSeriesPerShard, long chunkRangeMs, long checkpointIntervalMs,
                          long seriesIdleTimeoutMs, long chunkFileBytes, long retentionMs, long outOfOrderWindowMs) {
    public HeadOptions {
        if (shards < 1 || shards > 1024) {
            throw new IllegalArgumentException("shards must be 1..1024, not " + shards);
        }
    }

    /** Options with the default out-of-order window. */
    public HeadOptions(Path dataDirectory, int shards, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                       int batchBytes, int maxSeriesPerShard, long chunkRangeMs, long checkpointIntervalMs,
                       long seriesIdleTimeoutMs, long chunkFileBytes, long retentionMs) {
        this(dataDirectory, shards, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs,
                checkpointIntervalMs, seriesIdleTimeoutMs, chunkFileBytes, retentionMs, ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS);
    }

    /** Options without the persistence settings: defaults for those. */
    public HeadOptions(Path dataDirectory, int shards, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                       int batchBytes, int maxSeriesPerShard, long chunkRangeMs) {
        this(dataDirectory, shards, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs,
                ShardOptions.DEFAULT_CHECKPOINT_INTERVAL_MS, ShardOptions.DEFAULT_SERIES_IDLE_TIMEOUT_MS,
                ChunkFileDescriptor.DEFAULT_FILE_BYTES, ShardOptions.DEFAULT_RETENTION_MS);
    }

    public static HeadOptions defaults(Path dataDirectory) {
        return new HeadOptions(dataDirectory, Runtime.getRuntime().availableProcessors(), ShardOptions.DEFAULT_WAL_SEGMENT_BYTES,
                ShardOptions.DEFAULT_WAL_SYNC_INTERVAL_MS, ShardOptions.DEFAULT_QUEUE_BATCHES, ShardOptions.DEFAULT_BATCH_BYTES,
                ShardOptions.DEFAULT_MAX_SERIES, ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS);
    }

    public HeadOptions withShards(int n) {
        return with(f -> f.shards = n);
    }

    public HeadOptions withWalSegmentBytes(long bytes) {
        return with(f -> f.walSegmentBytes = bytes);
    }

    public HeadOptions withQueue(int batches, int bytesPerBatch) {
        return with(f -> {
            f.queueBatches = batches;
            f.batchBytes = bytesPerBatch;
        });
    }

    public HeadOptions withCheckpointIntervalMs(long intervalMs) {
        return with(f -> f.checkpointIntervalMs = intervalMs);
    }

    public HeadOptions withSeriesIdleTimeoutMs(long timeoutMs) {
        return with(f -> f.seriesIdleTimeoutMs = timeoutMs);
    }

    public HeadOptions withChunkFileBytes(long bytes) {
        return with(f -> f.chunkFileBytes = bytes);
    }

    public HeadOptions withRetentionMs(long ms) {
        return with(f -> f.retentionMs = ms);
    }

    public HeadOptions withOutOfOrderWindowMs(long ms) {
        return with(f -> f.outOfOrderWindowMs = ms);
    }

    /** The directory of shard {@code index}. */
    public Path shardDirectory(int index) {
        return dataDirectory.resolve("shard-" + index);
    }

    ShardOptions shard(int index) {
        return new ShardOptions(shardDirectory(index).resolve("wal"), walSegmentBytes, walSyncIntervalMs,
                queueBatches, batchBytes, maxSeriesPerShard, chunkRangeMs, 4, checkpointIntervalMs, seriesIdleTimeoutMs,
                chunkFileBytes, retentionMs, outOfOrderWindowMs);
    }

    /** This with the fields {@code change} sets: the one place the record is copied. */
    private HeadOptions with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.build();
    }

    /** The components as mutable fields, for {@link #with}. */
    private static final class Fields {
        private Path dataDirectory;
        private int shards;
        private long walSegmentBytes;
        private long walSyncIntervalMs;
        private int queueBatches;
        private int batchBytes;
        private int maxSeriesPerShard;
        private long chunkRangeMs;
        private long checkpointIntervalMs;
        private long seriesIdleTimeoutMs;
        private long chunkFileBytes;
        private long retentionMs;
        private long outOfOrderWindowMs;

        Fields(HeadOptions o) {
            dataDirectory = o.dataDirectory;
            shards = o.shards;
            walSegmentBytes = o.walSegmentBytes;
            walSyncIntervalMs = o.walSyncIntervalMs;
            queueBatches = o.queueBatches;
            batchBytes = o.batchBytes;
            maxSeriesPerShard = o.maxSeriesPerShard;
            chunkRangeMs = o.chunkRangeMs;
            checkpointIntervalMs = o.checkpointIntervalMs;
            seriesIdleTimeoutMs = o.seriesIdleTimeoutMs;
            chunkFileBytes = o.chunkFileBytes;
            retentionMs = o.retentionMs;
            outOfOrderWindowMs = o.outOfOrderWindowMs;
        }

        HeadOptions build() {
            return new HeadOptions(dataDirectory, shards, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes,
                    maxSeriesPerShard, chunkRangeMs, checkpointIntervalMs, seriesIdleTimeoutMs, chunkFileBytes, retentionMs,
                    outOfOrderWindowMs);
        }
    }
}
