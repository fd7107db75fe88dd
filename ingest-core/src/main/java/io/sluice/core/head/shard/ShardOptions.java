package io.sluice.core.head.shard;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Configuration of one shard; the shards of a head share one ({@code HeadOptions.perShard}) but for the directory.
 *
 * @param walDirectory         the shard's own WAL directory; its parent is the shard's directory,
 *                             which also holds {@code chunks/} and the checkpoints
 * @param walSegmentBytes      {@code wal.segment-size}: WAL segment size (128 MiB in production; small in tests)
 * @param walSyncIntervalMs    {@code wal.sync-interval}: group commit: the WAL is forced at most this often (and on close)
 * @param queueBatches         {@code queue.batches}: batches in flight per shard (its queue and pool); with
 *                             {@code batchBytes} this bounds the memory between consumers and shard
 * @param batchBytes           {@code queue.batch-bytes}: capacity of one batch
 * @param maxSeries            {@code head.max-series-per-shard}: cardinality limit; new series beyond it are rejected and counted
 * @param chunkRangeMs         chunks never span a multiple of this (Prometheus' 2 h block range)
 * @param maxBatchesPerWork    batches one {@code doWork()} applies before it returns (fairness)
 * @param checkpointIntervalMs {@code head.checkpoint-interval}: how often the shard checkpoints (0: only on close and on request)
 * @param seriesIdleTimeoutMs  {@code head.series-idle-timeout}: a series whose last sample is this much older than the shard's newest
 *                             sample has its open chunk cut to the chunk files at the next checkpoint (0: never)
 * @param chunkFileBytes       size of one chunk file (created at full size, sparse)
 * @param retentionMs          {@code storage.retention}: closed chunks whose last sample is this much older than the shard's newest
 *                             sample are dropped at a checkpoint, and series with nothing newer removed (0: never)
 * @param outOfOrderWindowMs   {@code head.out-of-order-window}: a sample older than its series' newest is stored if it is at most this much older
 *                             than the shard's newest sample, else rejected as too old (0: none is stored)
 */
public record ShardOptions(Path walDirectory, long walSegmentBytes, long walSyncIntervalMs, int queueBatches,
                           int batchBytes, int maxSeries, long chunkRangeMs, int maxBatchesPerWork,
                           long checkpointIntervalMs, long seriesIdleTimeoutMs, long chunkFileBytes, long retentionMs,
                           long outOfOrderWindowMs) {
    // The defaults, in one place: the server's configuration table shows these (ConfigKey derives its text from them).
    public static final long DEFAULT_WAL_SEGMENT_BYTES = 128L << 20;
    public static final long DEFAULT_WAL_SYNC_INTERVAL_MS = 100;
    public static final int DEFAULT_QUEUE_BATCHES = 8;
    public static final int DEFAULT_BATCH_BYTES = 256 * 1024;
    public static final int DEFAULT_MAX_SERIES = 2_000_000;
    public static final long DEFAULT_CHECKPOINT_INTERVAL_MS = 5 * 60_000L;
    public static final long DEFAULT_SERIES_IDLE_TIMEOUT_MS = 24 * 3_600_000L;
    /** Prometheus' default retention. */
    public static final long DEFAULT_RETENTION_MS = 15 * 86_400_000L;
    /**
     * One hour: a series spread over partitions by producers that do not key by series is read in
     * fetch order, and after a consumer restart or a rebalance its partitions catch up at different
     * speeds, so one series' samples arrive up to the lag between its partitions late (minutes after a
     * short outage); collector retries add seconds to minutes. An hour covers these; older data
     * (backfills) is rejected and counted rather than silently merged.
     */
    public static final long DEFAULT_OUT_OF_ORDER_WINDOW_MS = 3_600_000L;

    public ShardOptions {
        if (queueBatches < 2 || batchBytes < 1024 || maxSeries < 1 || chunkRangeMs < 1 || maxBatchesPerWork < 1
                || walSyncIntervalMs < 0 || walSegmentBytes < 64 * 1024 || checkpointIntervalMs < 0 || seriesIdleTimeoutMs < 0 || retentionMs < 0 || outOfOrderWindowMs < 0
                || chunkFileBytes < ChunkFileDescriptor.MIN_FILE_BYTES || chunkFileBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("invalid shard options: " + this);
        }
    }

    /** Production defaults for a shard whose WAL lives in {@code walDirectory}. */
    public static ShardOptions defaults(Path walDirectory) {
        return new ShardOptions(walDirectory, DEFAULT_WAL_SEGMENT_BYTES, DEFAULT_WAL_SYNC_INTERVAL_MS, DEFAULT_QUEUE_BATCHES,
                DEFAULT_BATCH_BYTES, DEFAULT_MAX_SERIES, ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS, 4, DEFAULT_CHECKPOINT_INTERVAL_MS,
                DEFAULT_SERIES_IDLE_TIMEOUT_MS, ChunkFileDescriptor.DEFAULT_FILE_BYTES, DEFAULT_RETENTION_MS,
                DEFAULT_OUT_OF_ORDER_WINDOW_MS);
    }

    /** The shard's directory: the WAL's parent. */
    public Path shardDirectory() {
        Path parent = walDirectory.toAbsolutePath().getParent();
        return parent == null ? walDirectory.toAbsolutePath() : parent;
    }

    /** The same settings for the shard whose WAL lives in {@code directory}. */
    public ShardOptions withWalDirectory(Path directory) {
        return with(f -> f.walDirectory = directory);
    }

    public ShardOptions withWalSegmentBytes(long bytes) {
        return with(f -> f.walSegmentBytes = bytes);
    }

    public ShardOptions withMaxSeries(int series) {
        return with(f -> f.maxSeries = series);
    }

    public ShardOptions withQueue(int batches, int bytesPerBatch) {
        return with(f -> {
            f.queueBatches = batches;
            f.batchBytes = bytesPerBatch;
        });
    }

    public ShardOptions withWalSyncIntervalMs(long ms) {
        return with(f -> f.walSyncIntervalMs = ms);
    }

    /** Checkpoint every {@code intervalMs} and on close (0: only on close and on request). */
    public ShardOptions withCheckpointIntervalMs(long intervalMs) {
        return with(f -> f.checkpointIntervalMs = intervalMs);
    }

    public ShardOptions withSeriesIdleTimeoutMs(long timeoutMs) {
        return with(f -> f.seriesIdleTimeoutMs = timeoutMs);
    }

    public ShardOptions withChunkFileBytes(long bytes) {
        return with(f -> f.chunkFileBytes = bytes);
    }

    public ShardOptions withRetentionMs(long ms) {
        return with(f -> f.retentionMs = ms);
    }

    public ShardOptions withOutOfOrderWindowMs(long ms) {
        return with(f -> f.outOfOrderWindowMs = ms);
    }

    /** This with the fields {@code change} sets: the one place the record is copied. */
    private ShardOptions with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.build();
    }

    /** The components as mutable fields, for {@link #with}. */
    private static final class Fields {
        private Path walDirectory;
        private long walSegmentBytes;
        private long walSyncIntervalMs;
        private int queueBatches;
        private int batchBytes;
        private int maxSeries;
        private long chunkRangeMs;
        private int maxBatchesPerWork;
        private long checkpointIntervalMs;
        private long seriesIdleTimeoutMs;
        private long chunkFileBytes;
        private long retentionMs;
        private long outOfOrderWindowMs;

        Fields(ShardOptions o) {
            walDirectory = o.walDirectory;
            walSegmentBytes = o.walSegmentBytes;
            walSyncIntervalMs = o.walSyncIntervalMs;
            queueBatches = o.queueBatches;
            batchBytes = o.batchBytes;
            maxSeries = o.maxSeries;
            chunkRangeMs = o.chunkRangeMs;
            maxBatchesPerWork = o.maxBatchesPerWork;
            checkpointIntervalMs = o.checkpointIntervalMs;
            seriesIdleTimeoutMs = o.seriesIdleTimeoutMs;
            chunkFileBytes = o.chunkFileBytes;
            retentionMs = o.retentionMs;
            outOfOrderWindowMs = o.outOfOrderWindowMs;
        }

        ShardOptions build() {
            return new ShardOptions(walDirectory, walSegmentBytes, walSyncIntervalMs, queueBatches, batchBytes, maxSeries,
                    chunkRangeMs, maxBatchesPerWork, checkpointIntervalMs, seriesIdleTimeoutMs, chunkFileBytes, retentionMs,
                    outOfOrderWindowMs);
        }
    }
}
