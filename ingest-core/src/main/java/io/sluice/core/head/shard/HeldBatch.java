package io.sluice.core.head.shard;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A shard's failing WAL writes (typically a full disk): the batch held for a retry, the retry's
 * back-off (10 ms doubling to 1 s, so a full disk is not retried in a busy loop and a freed one is
 * used within a second), and the error that {@link Shard#walError()} reports meanwhile. One ERROR
 * line when the shard stops taking batches, one INFO line when it resumes.
 *
 * <p>Threads: the shard thread; {@link #message()} any thread.
 */
final class HeldBatch {
    private static final System.Logger LOG = System.getLogger(Shard.class.getName());
    private static final long MIN_RETRY_BACKOFF_NS = 10_000_000L;
    private static final long MAX_RETRY_BACKOFF_NS = 1_000_000_000L;

    private final int shardIndex;
    private final Path walDirectory;
    private ShardBatch batch;      // a batch whose WAL write failed: retried
    private long retryAtNs;        // not before this
    private long backoffNs;        // 0 once a write succeeds
    private volatile String message;

    HeldBatch(int shardIndex, Path walDirectory) {
        this.shardIndex = shardIndex;
        this.walDirectory = walDirectory;
    }

    /** Whether a batch is held. */
    boolean isHolding() {
        return batch != null;
    }

    /** The held batch if its retry is due (the caller applies it, or holds it again), else null. */
    ShardBatch takeDue(long nowNs) {
        if (batch == null || nowNs - retryAtNs < 0) {
            return null;
        }
        ShardBatch due = batch;
        batch = null;
        return due;
    }

    /** {@code failed} could not be written: hold it and retry after the back-off. */
    void hold(ShardBatch failed, IOException e, long nowNs) {
        batch = failed;
        backoffNs = backoffNs == 0 ? MIN_RETRY_BACKOFF_NS : Math.min(2 * backoffNs, MAX_RETRY_BACKOFF_NS);
        retryAtNs = nowNs + backoffNs;
        failed(e);
    }

    /** A WAL write (or sync) failed; logged once per episode. */
    void failed(IOException e) {
        boolean first = message == null;
        message = "shard " + shardIndex + " cannot write its WAL in " + walDirectory + ": " + e.getMessage();
        if (first) {
            LOG.log(System.Logger.Level.ERROR, message + "; its batches are held and retried, the Kafka"
                    + " partitions feeding it pause until the write succeeds");
        }
    }

    /** A batch was written: the back-off resets, and an episode of failures ends. */
    void succeeded() {
        backoffNs = 0;
        if (message != null) {
            message = null;
            LOG.log(System.Logger.Level.INFO, "shard " + shardIndex + " writes its WAL again; ingestion resumes");
        }
    }

    /** Why ingestion is held, if it is; null when the WAL takes writes. Any thread. */
    String message() {
        return message;
    }
}
