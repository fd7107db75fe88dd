package io.sluice.core.head.shard;

import io.sluice.core.head.checkpoint.CheckpointTarget;
import io.sluice.core.head.checkpoint.Checkpoints;
import io.sluice.core.head.checkpoint.RestoreReport;
import io.sluice.core.head.chunkfiles.ChunkFileWriter;
import io.sluice.core.head.chunkfiles.ChunkFiles;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.records.SeriesCodecState;
import io.sluice.core.head.replay.ReplayListener;
import io.sluice.core.head.replay.ReplayProgress;
import io.sluice.core.head.replay.ReplayTarget;
import io.sluice.core.head.replay.ShardReplay;
import io.sluice.core.head.series.IdleSeriesEviction;
import io.sluice.core.head.series.SeriesDescriptor;
import io.sluice.core.head.series.SeriesRegistry;
import io.sluice.core.head.series.SeriesStore;
import io.sluice.core.head.series.ShardIndex;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.wal.Wal;
import io.sluice.wal.WalOpenReport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * One shard: the single writer of its series, chunks, index and WAL. An agent in the Agrona sense:
 * the thread is supplied from outside ({@link ShardRunner} in production, a test calling
 * {@link #doWork()} by hand), which calls {@link #start()} once, then {@link #doWork()} in a loop,
 * then {@link #close()}.
 *
 * <p>Other threads reach the shard only through {@link #acquireBatch()}/{@link #submit} (a bounded
 * pool and queue: when the pool is empty the producer gets null and applies backpressure), the
 * read side ({@link #snapshot}, {@link #select}) and the published watermarks and counters.
 *
 * <p>Exactly-once: each batch's samples are written to the WAL, then an OFFSETS record with the
 * highest Kafka offset applied per stream. After a WAL sync those offsets are published as
 * {@link #durableWatermark durable}; the Kafka layer commits the minimum over shards. Records at or
 * below a shard's applied watermark are skipped, so re-delivered records after a restart are not
 * applied twice. (A crash between a SAMPLES record and its OFFSETS record re-delivers those
 * records; the head's append rules then ignore the duplicates: same timestamp, same value.)
 */
public final class Shard implements AutoCloseable {

    private final int index;
    private final ShardOptions options;
    private final StreamRegistry streams;
    private final LongSupplier nanoClock;
    private final ShardStats stats = new ShardStats();
    private final DurableLatency durableLatency = new DurableLatency();
    private final SeriesStore store;
    private final ShardIndex seriesIndex;
    private final BoundedQueue<ShardBatch> queue;
    private final BoundedQueue<ShardBatch> pool;
    // Batches are created on first demand, up to the queue's capacity: a restart that only replays never
    // zeroes the pool (queueBatches x batchBytes of heap per shard, 33 MB with the defaults).
    private final AtomicInteger batchesCreated = new AtomicInteger();
    private final ReplayProgress replayProgress;

    // Shard thread only.
    private final SeriesRegistry registry;
    private final SeriesCodecState codecState = new SeriesCodecState(1024);
    private final BatchApplier applier;
    private final Target target = new Target();
    private Wal wal;
    private final StreamWatermarks watermarks;     // applied/pending offsets: shard thread; durable: any thread
    private final HeldBatch held;                  // a batch whose WAL write failed (disk full), retried
    private volatile Checkpoints checkpoints; // set once by start(); read by any thread for the refill state
    private ChunkFiles chunkFiles;            // set once by start(); shard thread
    private final IdleSeriesEviction eviction;
    private long lastCheckpointNs;
    private volatile int evictedSeries;        // written by the shard thread
    private boolean closed;

    // Published to any thread.
    private volatile boolean replayed;
    private volatile boolean syncRequested;
    private volatile Thread worker;                // unparked on submit, if set
    private volatile boolean checkpointRequested;
    private volatile boolean checkpointOnClose = true; // false: close leaves the files as they are (benchmarks)
    private volatile RestoreReport restoreReport = RestoreReport.NONE;
    private volatile long checkpointRounds;        // checkpoints attempted and finished (written or failed)
    private volatile ReplayListener replayListener = ReplayListener.NONE; // set before start()
    private volatile ChunkFileWriter.ChunkOrder chunkOrder;        // set before start(); null: append order

    public Shard(int index, ShardOptions options, StreamRegistry streams, MemoryAccounting accounting, LongSupplier nanoClock) {
        this.index = index;
        this.options = options;
        this.streams = streams;
        this.watermarks = new StreamWatermarks(streams);
        this.nanoClock = nanoClock;
        this.store = new SeriesStore(accounting, options.chunkRangeMs());
        store.outOfOrderWindowMs(options.outOfOrderWindowMs());
        this.seriesIndex = new ShardIndex();
        this.registry = new SeriesRegistry(1024);
        this.eviction = new IdleSeriesEviction(store, registry, seriesIndex, stats);
        this.queue = new BoundedQueue<>(options.queueBatches());
        this.pool = new BoundedQueue<>(options.queueBatches());
        this.replayProgress = new ReplayProgress(options.walSegmentBytes());
        this.held = new HeldBatch(index, options.walDirectory());
        this.applier = new BatchApplier(options, store, registry, seriesIndex, stats, watermarks, codecState);
    }

    public int index() {
        return index;
    }

    /**
     * The order each write of the chunk files puts its chunks in (the head's label order, so that a
     * query's reads run through the files front to back); null (the default): append order. Call
     * before {@link #start()}.
     */
    public void chunkOrder(ChunkFileWriter.ChunkOrder order) {
        this.chunkOrder = order;
    }

    public ShardStats stats() {
        return stats;
    }

    // ---------------------------------------------------------------- producer side (any thread)

    /**
     * An empty batch to fill, or null when all of this shard's batches are in flight (backpressure).
     * The shard owns at most as many batches as its queue holds; they are created the first time the
     * pool is empty and reused from then on.
     */
    public ShardBatch acquireBatch() {
        ShardBatch batch = pool.poll();
        if (batch != null) {
            batch.clear();
            return batch;
        }
        return createBatch();
    }

    private ShardBatch createBatch() {
        for (int created = batchesCreated.get(); created < queue.capacity(); created = batchesCreated.get()) {
            if (batchesCreated.compareAndSet(created, created + 1)) {
                return new ShardBatch(index, options.batchBytes());
            }
        }
        return null;
    }

    /** Hands a filled batch to the shard. Never fails for a batch from {@link #acquireBatch()}. */
    public void submit(ShardBatch batch) {
        batch.queuedNanos = nanoClock.getAsLong(); // published to the shard thread by the queue
        if (batch.shard() != index || !queue.offer(batch)) {
            throw new IllegalStateException("batch of shard " + batch.shard() + " submitted to shard " + index
                    + " or submitted twice");
        }
        Thread w = worker;
        if (w != null) {
            LockSupport.unpark(w); // cheap when it is not parked; ends an idle back-off at once
        }
    }

    /** The thread to wake when a batch arrives (the runner's). */
    void wakeOnSubmit(Thread thread) {
        worker = thread;
    }

    /** Whether batches wait to be applied (queued, or held after a WAL error). Shard thread. */
    boolean hasPendingWork() {
        return held.isHolding() || queue.size() > 0;
    }

    /** Returns an unused batch from {@link #acquireBatch()} to the pool. */
    public void release(ShardBatch batch) {
        pool.offer(batch);
    }

    /** Batches waiting to be applied. */
    public int queueDepth() {
        return queue.size();
    }

    // ---------------------------------------------------------------- lifecycle (the shard thread)

    /**
     * Opens (and repairs) the WAL, loads the newest sound checkpoint and replays the WAL after it.
     * Call once, on the shard thread, before {@link #doWork()}.
     */
    public WalOpenReport start() throws IOException {
        chunkFiles = new ChunkFiles(index, options.shardDirectory().resolve("chunks"), options.chunkFileBytes(), store.mappings(),
                store::chunksFlushed, chunkOrder, stats);
        checkpoints = new Checkpoints(target, options.shardDirectory(), store, chunkFiles, stats, streams);
        WalOpening opening = new WalOpening(index, options);
        wal = opening.open(checkpoints.newestPosition());
        RestoreReport report = checkpoints.restore(wal, opening);
        wal = opening.wal();
        store.chunkSink(chunkFiles::persist); // chunks cut during replay go to the chunk files too
        chunkFiles.replayWrites(true); // no query runs before the head is ready: chunk files written with O_DIRECT
        new ShardReplay(target, wal, store, codecState, stats, streams, replayProgress, replayListener).run(report.replayFrom());
        chunkFiles.replayWrites(false);
        restoreReport = report;
        lastCheckpointNs = nanoClock.getAsLong();
        replayed = true;
        return wal.openReport();
    }

    /** What {@link #start()} found on disk: the checkpoint loaded, damage, whether data was discarded. Any thread. */
    public RestoreReport restoreReport() {
        return restoreReport;
    }

    /**
     * Checkpoints now: applies the retention and cuts idle series' open chunks
     * ({@link IdleSeriesEviction}), then persists the shard so that replay can start here
     * (see {@link Checkpoints}). Returns false if it could not (counted; the WAL is kept).
     * Shard thread, between batches.
     */
    public boolean checkpoint() {
        checkpointRequested = false;
        lastCheckpointNs = nanoClock.getAsLong();
        evictedSeries = evictedSeries + eviction.run(options.seriesIdleTimeoutMs(), options.retentionMs(), System.currentTimeMillis());
        boolean written = checkpoints.write(wal);
        if (written) {
            checkpoints.endRefillIfCaughtUp();
        }
        checkpointRounds = checkpointRounds + 1; // single writer
        return written;
    }

    /** Checkpoints finished (written or failed), each counted once it is completely done. Any thread. */
    public long checkpointRounds() {
        return checkpointRounds;
    }

    /**
     * True while this shard re-reads from Kafka what it discarded (damage): the Kafka layer must consume
     * from the head's durable watermark, even below the committed offset. Survives restarts. Any thread.
     */
    public boolean isRefilling() {
        Checkpoints c = checkpoints;
        return c != null && c.isRefilling();
    }

    /** See {@link Checkpoints#refillUntil}. Any thread, after {@link #start()}. */
    public void refillUntil(long[] targetByStream) {
        checkpoints.refillUntil(targetByStream);
    }

    /** Makes {@link #close()} leave the files as they are (no checkpoint), e.g. to time a restart repeatedly. Any thread. */
    public void skipCheckpointOnClose() {
        checkpointOnClose = false;
    }

    /** Asks the shard thread to checkpoint at its next {@link #doWork()}. Any thread. */
    public void requestCheckpoint() {
        checkpointRequested = true;
    }

    /** How far {@link #start()} has replayed the WAL. Any thread. */
    public ReplayProgress replayProgress() {
        return replayProgress;
    }

    /** Who to tell of each replayed record (on the shard thread); set before {@link #start()}. */
    public void replayListener(ReplayListener listener) {
        this.replayListener = listener;
    }

    /** True once {@link #start()} finished replaying the WAL. Any thread. */
    public boolean isReplayed() {
        return replayed;
    }

    /**
     * Applies up to {@code maxBatchesPerWork} queued batches and syncs the WAL when the group-commit
     * interval passed. Returns the number of batches applied (0: idle, the caller may back off).
     */
    public int doWork() {
        int work = 0;
        try {
            if (held.isHolding()) {
                ShardBatch batch = held.takeDue(nanoClock.getAsLong());
                if (batch == null) {
                    return 0; // a full disk is not retried in a busy loop (each try may create a segment)
                }
                applyOrHold(batch);
                if (held.isHolding()) {
                    return 0;
                }
                work++;
            }
            while (work < options.maxBatchesPerWork()) {
                ShardBatch batch = queue.poll();
                if (batch == null) {
                    break;
                }
                applyOrHold(batch);
                if (held.isHolding()) {
                    break;
                }
                work++;
            }
            long nowNs = nanoClock.getAsLong();
            if (syncRequested) {
                syncRequested = false;
                sync();
            } else if (wal.maybeSync(nowNs)) {
                publishDurable();
            }
            if (checkpointRequested || (options.checkpointIntervalMs() > 0 && !held.isHolding()
                    && nowNs - lastCheckpointNs >= options.checkpointIntervalMs() * 1_000_000L)) {
                checkpoint();
            }
        } catch (IOException e) {
            held.failed(e);
        }
        return work;
    }

    private void applyOrHold(ShardBatch batch) {
        long startNs = nanoClock.getAsLong(); // once per batch, not per sample
        try {
            apply(batch);
            stats.add(ShardStats.Counter.APPLY_NANOS, nanoClock.getAsLong() - startNs);
            stats.increment(ShardStats.Counter.BATCHES_APPLIED);
            durableLatency.applied(batch.queuedNanos);
            pool.offer(batch);
            held.succeeded();
        } catch (IOException e) {
            // Typically a full disk while rolling the WAL: keep the batch and retry it; the queue fills
            // up, the consumers pause. Re-applying is safe: what was applied is ignored as duplicate.
            applier.abort(wal);
            watermarks.forgetPending();
            held.hold(batch, e, nanoClock.getAsLong());
        }
    }

    /** Why ingestion is held, if it is (e.g. the disk is full); null when healthy. Any thread. */
    public String walError() {
        return held.message();
    }

    /**
     * Reports each batch's time from {@link #submit} to the WAL sync that made it durable (null: stop).
     * Any thread; applies from the next applied batch.
     */
    public void onBatchDurable(BatchLatencyListener listener) {
        durableLatency.listener(listener);
    }

    /** Asks the shard thread to sync its WAL at its next {@link #doWork()}. Any thread. */
    public void requestSync() {
        syncRequested = true;
    }

    /** Forces the WAL now and publishes the durable watermarks (shutdown, revocation). Shard thread. */
    public void sync() throws IOException {
        wal.sync();
        publishDurable();
    }

    /**
     * Closes without a checkpoint, leaving on disk what a kill -9 right after a WAL sync leaves:
     * used to read an old shard while resharding, and by tests of restarts. Shard thread.
     */
    public void closeWithoutCheckpoint() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (wal != null) {
                sync();
                wal.close();
            }
        } finally {
            if (chunkFiles != null) {
                chunkFiles.close();
            }
            store.close();
        }
    }

    /** Checkpoints (if the shard started), syncs and closes the WAL and the chunk file, frees memory. Shard thread. */
    @Override
    public void close() throws IOException {
        if (checkpointOnClose && !closed && wal != null && replayed && !held.isHolding()) {
            checkpoint();
        }
        closeWithoutCheckpoint();
    }

    // ---------------------------------------------------------------- applying a batch

    private void apply(ShardBatch batch) throws IOException {
        applier.apply(batch, wal);
    }

    /** The highest offset of {@code streamId} this shard applied, -1 if none. Shard thread. */
    long appliedOffset(int streamId) {
        return watermarks.applied(streamId);
    }

    /** After a sync every written OFFSETS record is durable: publish the applied watermarks. */
    private void publishDurable() {
        durableLatency.durable(nanoClock.getAsLong()); // before the watermarks: whoever sees them sees the latencies
        watermarks.publishDurable();
        stats.increment(ShardStats.Counter.WAL_SYNCS);
    }

    // ---------------------------------------------------------------- read side (any thread)

    /** The highest offset of {@code streamId} whose samples this shard holds durably, or -1. Any thread. */
    public long durableWatermark(int streamId) {
        return watermarks.durable(streamId);
    }

    /** Series ids 0..seriesCount()-1 exist (evicted ones included, without samples). Any thread. */
    public int seriesCount() {
        return store.count();
    }

    /** The hash of series {@code id}'s labels. Any thread (ids below {@link #seriesCount()}). */
    public long seriesHash(int id) {
        return store.hash(id);
    }

    /** Series held in memory: created and not evicted. Any thread. */
    public int activeSeriesCount() {
        return replayed ? store.count() - evictedSeries : store.count();
    }

    /** Copies series {@code id} (labels and the chunks overlapping the range) into {@code into}. Any thread. */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        store.snapshot(id, minTimeMs, maxTimeMs, into);
    }

    /**
     * {@link #snapshot}, referring to {@code labels}, the series' canonical labels the caller copied already
     * (null: copied into the snapshot's own buffer). Any thread.
     */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into, byte[] labels) {
        store.snapshot(id, minTimeMs, maxTimeMs, into, labels);
    }

    /**
     * Whether series {@code id} may have samples in [minTimeMs, maxTimeMs], from its first and last
     * timestamps: copies nothing. False means none; true may still find no chunk in range (a gap).
     * Any thread.
     */
    public boolean mayOverlap(int id, long minTimeMs, long maxTimeMs) {
        long last = store.maxTime(id);
        return last != SeriesDescriptor.NO_SAMPLES && last >= minTimeMs && store.minTime(id) <= maxTimeMs;
    }

    /**
     * The first and last sample time over this shard's series as {@code {min, max}}, or null if no
     * series has a sample; from the series structs (copies no chunk), O(series). Any thread.
     */
    public long[] timeRange() {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        int n = store.count();
        for (int id = 0; id < n; id++) {
            long last = store.maxTime(id);
            if (last == SeriesDescriptor.NO_SAMPLES) {
                continue;
            }
            min = Math.min(min, store.minTime(id));
            max = Math.max(max, last);
        }
        return min > max ? null : new long[] {min, max};
    }

    /** The canonical label bytes of series {@code id}, copied. Any thread (labels never change). */
    public byte[] labelsCopy(int id) {
        byte[] labels = new byte[store.labelsLength(id)];
        store.copyLabels(id, labels);
        return labels;
    }

    /** Copies the canonical label bytes of series {@code id} into {@code target} (long enough); returns their length. Any thread. */
    public int copyLabels(int id, byte[] target) {
        return store.copyLabels(id, target);
    }

    /** The label index (symbols and postings) of this shard, for selection. Any thread. */
    public ShardIndex labelIndex() {
        return seriesIndex;
    }

    /**
     * What the series of this shard cost beyond their label text and sample data: the per-series
     * structs, the registry, the postings and the symbol table's per-symbol overhead. Shard thread
     * (or a quiescent shard).
     */
    public MemoryReport memoryReport() {
        return new MemoryReport(store.count(), store.structBytes(), registry.footprintBytes(), seriesIndex.postingsHeapBytes(),
                seriesIndex.symbols().heapBytes() - seriesIndex.symbols().symbolBytes(), store.labelBytes(),
                seriesIndex.symbols().symbolBytes(), store.chunkBytesInUse(), store.outOfOrder().heapBytes());
    }

    public long chunkBytesInUse() {
        return store.chunkBytesInUse();
    }

    /** Heap bytes of the out-of-order samples this shard holds (an estimate, see {@code OutOfOrderStore}). Any thread. */
    public long outOfOrderBytes() {
        return store.outOfOrder().heapBytes();
    }

    /** Series of this shard with out-of-order samples. Any thread. */
    public int outOfOrderSeriesCount() {
        return store.outOfOrder().seriesCount();
    }

    /** The WAL, for metrics and inspection. */
    public Wal wal() {
        return wal;
    }

    /** What replay and checkpoints may change in this shard besides its series store: nothing else of it. */
    private final class Target implements ReplayTarget, CheckpointTarget {
        @Override
        public int index() {
            return index;
        }

        @Override
        public int createSeries(long hash, byte[] labels, int offset, int length) {
            return applier.createSeries(hash, labels, offset, length);
        }

        @Override
        public void restoreWatermark(int streamId, long offset) {
            watermarks.restore(streamId, offset);
        }

        @Override
        public void publishDurable() {
            Shard.this.publishDurable();
        }

        @Override
        public int knownStreams() {
            return watermarks.known();
        }

        @Override
        public long appliedOffset(int streamId) {
            return watermarks.applied(streamId);
        }

        @Override
        public void sync() throws IOException {
            Shard.this.sync();
        }

        @Override
        public void expectSeries(int series) {
            registry.ensureCapacity(series);
        }

        @Override
        public void createEvictedPlaceholder() {
            store.createEvicted();
            evictedSeries = evictedSeries + 1; // single writer
        }
    }
}
