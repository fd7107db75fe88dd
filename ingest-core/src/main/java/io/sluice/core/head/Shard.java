package io.sluice.core.head;

import io.sluice.core.head.wal.HeadRecordType;
import io.sluice.core.head.wal.SamplesRecord;
import io.sluice.core.head.wal.SeriesCodecState;
import io.sluice.core.head.wal.SeriesRecord;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.wal.Wal;
import io.sluice.wal.WalCorruption;
import io.sluice.wal.WalOpenReport;
import io.sluice.wal.WalOptions;
import java.io.IOException;
import java.util.Arrays;
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
    private static final long MIN_RETRY_BACKOFF_NS = 10_000_000L;    // first retry of a failed WAL write
    private static final long MAX_RETRY_BACKOFF_NS = 1_000_000_000L; // a freed disk is used within a second
    private static final System.Logger LOG = System.getLogger(Shard.class.getName());
    private static final int SKIPPED = -1;
    private static final int REJECTED = -2;
    /** Largest SAMPLES record claimed at once, bounding the claim to a small part of a segment. */
    private static final int MAX_RECORD_BYTES = 1 << 20;

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
    private final SeriesRegistry.LabelsMatcher labelsMatcher; // bound once: a method reference per call may allocate
    private final SeriesCodecState codecState = new SeriesCodecState(1024);
    private final SamplesRecord.Encoder samplesEncoder = new SamplesRecord.Encoder(codecState);
    private final ShardBatch.Reader reader = new ShardBatch.Reader();
    private final int maxSamplesPerRecord;
    private Wal wal;
    private int[] entryIds = new int[1024];
    private final StreamWatermarks watermarks;     // applied/pending offsets: shard thread; durable: any thread
    private boolean recordOpen;
    private int recordEntries;
    private int recordCapacity;
    private ShardBatch retryBatch;                 // a batch whose WAL write failed (disk full): retried
    private long retryAtNs;                        // shard thread: not before this; backs off while failing
    private long retryBackoffNs;                   // shard thread: 10 ms doubling to 1 s, 0 once a write succeeds
    private IOException lastWalError;
    private volatile ShardCheckpoints checkpoints; // set once by start(); read by any thread for the refill state
    private final IdleSeriesEviction eviction;
    private long lastCheckpointNs;
    private int evictedSeries;
    private boolean closed;

    // Published to any thread.
    private volatile boolean replayed;
    private volatile String walErrorMessage;
    private volatile boolean syncRequested;
    private volatile Thread worker;                // unparked on submit, if set
    private volatile boolean checkpointRequested;
    private volatile boolean checkpointOnClose = true; // false: close leaves the files as they are (benchmarks)
    private volatile RestoreReport restoreReport = RestoreReport.NONE;
    private volatile long checkpointRounds;        // checkpoints attempted and finished (written or failed)
    private volatile int activeSeries;
    private volatile ReplayListener replayListener = ReplayListener.NONE; // set before start()

    public Shard(int index, ShardOptions options, StreamRegistry streams, MemoryAccounting accounting, LongSupplier nanoClock) {
        this.index = index;
        this.options = options;
        this.streams = streams;
        this.watermarks = new StreamWatermarks(streams);
        this.nanoClock = nanoClock;
        this.store = new SeriesStore(accounting, options.chunkRangeMs());
        this.seriesIndex = new ShardIndex();
        this.registry = new SeriesRegistry(1024);
        this.labelsMatcher = store::labelsEqual;
        this.eviction = new IdleSeriesEviction(store, registry, seriesIndex, stats);
        this.queue = new BoundedQueue<>(options.queueBatches());
        this.pool = new BoundedQueue<>(options.queueBatches());
        this.replayProgress = new ReplayProgress(options.walSegmentBytes());
        int byBytes = (int) Math.min(MAX_RECORD_BYTES, options.walSegmentBytes() / 4) / SamplesRecord.MAX_ENTRY_BYTES;
        this.maxSamplesPerRecord = Math.max(1, byBytes - 1);
    }

    public int index() {
        return index;
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
        return retryBatch != null || queue.size() > 0;
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
        checkpoints = new ShardCheckpoints(this, options, store, stats, streams);
        // Segments before the newest checkpoint are not read now: replay starts after them if it loads.
        wal = Wal.open(WalOptions.builder(options.walDirectory())
                .segmentSizeBytes((int) options.walSegmentBytes())
                .syncIntervalMs(options.walSyncIntervalMs())
                .build(), checkpoints.newestPosition());
        logRepair(wal.openReport());
        RestoreReport report = checkpoints.restore(wal, this::reopenWalScanningAll);
        store.chunkSink(checkpoints::persist); // chunks cut during replay go to the chunk files too
        checkpoints.replayWrites(true); // no query runs before the head is ready: chunk files written with O_DIRECT
        new ShardReplay(this, wal, store, codecState, stats, streams, replayProgress, replayListener).run(report.replayFrom());
        checkpoints.replayWrites(false);
        restoreReport = report;
        activeSeries = store.count() - evictedSeries;
        lastCheckpointNs = nanoClock.getAsLong();
        replayed = true;
        return wal.openReport();
    }

    /**
     * The newest checkpoint is damaged, so replay may need the WAL segments open skipped: reads them
     * (with the full repair) and returns the WAL to use from now on. Shard thread, during start.
     */
    private Wal reopenWalScanningAll() throws IOException {
        WalCorruption before = wal.openReport().corruption();
        wal = wal.reopenScanningAll();
        if (wal.openReport().corruption() != before) {
            logRepair(wal.openReport());
        }
        return wal;
    }

    /** Damage found by open is an operator's business: which file, where, how much was cut. */
    private void logRepair(WalOpenReport report) {
        WalCorruption c = report.corruption();
        if (c != null) {
            LOG.log(System.Logger.Level.WARNING, "shard " + index + " repaired its WAL: " + c.reason() + " in "
                    + options.walDirectory().resolve(String.format("%010d.wal", c.segment())) + " at byte " + c.offset()
                    + " (" + c.detail() + "), " + c.bytesCut() + " bytes cut, " + c.laterSegments()
                    + " later segment(s) dropped; the Kafka records they held are consumed again");
        }
    }

    /** What {@link #start()} found on disk: the checkpoint loaded, damage, whether data was discarded. Any thread. */
    public RestoreReport restoreReport() {
        return restoreReport;
    }

    /**
     * Checkpoints now: applies the retention and cuts idle series' open chunks
     * ({@link IdleSeriesEviction}), then persists the shard so that replay can start here
     * (see {@link ShardCheckpoints}). Returns false if it could not (counted; the WAL is kept).
     * Shard thread, between batches.
     */
    public boolean checkpoint() {
        checkpointRequested = false;
        lastCheckpointNs = nanoClock.getAsLong();
        evictedSeries += eviction.run(options.seriesIdleTimeoutMs(), options.retentionMs(), System.currentTimeMillis());
        activeSeries = store.count() - evictedSeries;
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
        ShardCheckpoints c = checkpoints;
        return c != null && c.isRefilling();
    }

    /** See {@link ShardCheckpoints#refillUntil}. Any thread, after {@link #start()}. */
    public void refillUntil(long[] targetByStream) {
        checkpoints.refillUntil(targetByStream);
    }

    /** Makes {@link #close()} leave the files as they are (no checkpoint), e.g. to time a restart repeatedly. Any thread. */
    void skipCheckpointOnClose() {
        checkpointOnClose = false;
    }

    /** Asks the shard thread to checkpoint at its next {@link #doWork()}. Any thread. */
    public void requestCheckpoint() {
        checkpointRequested = true;
    }

    /** Restore: the checkpoint holds this many series ids; sizes the registry once for them. Shard thread. */
    void expectSeries(int series) {
        registry.ensureCapacity(series);
    }

    /** Restore: takes the id of a series evicted before the checkpoint (ids are dense, never reused). */
    void createEvictedPlaceholder() {
        store.createEvicted();
        evictedSeries++;
    }

    /** How far {@link #start()} has replayed the WAL. Any thread. */
    public ReplayProgress replayProgress() {
        return replayProgress;
    }

    /** Who to tell of each replayed record (on the shard thread); set before {@link #start()}. */
    void replayListener(ReplayListener listener) {
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
            if (retryBatch != null) {
                if (nanoClock.getAsLong() - retryAtNs < 0) {
                    return 0; // a full disk is not retried in a busy loop (each try may create a segment)
                }
                ShardBatch batch = retryBatch;
                retryBatch = null;
                applyOrHold(batch);
                if (retryBatch != null) {
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
                if (retryBatch != null) {
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
            if (checkpointRequested || (options.checkpointIntervalMs() > 0 && retryBatch == null
                    && nowNs - lastCheckpointNs >= options.checkpointIntervalMs() * 1_000_000L)) {
                checkpoint();
            }
        } catch (IOException e) {
            recordWalError(e);
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
            retryBackoffNs = 0;
            if (walErrorMessage != null) {
                walErrorMessage = null;
                LOG.log(System.Logger.Level.INFO, "shard " + index + " writes its WAL again; ingestion resumes");
            }
        } catch (IOException e) {
            // Typically a full disk while rolling the WAL: keep the batch and retry it; the queue fills
            // up, the consumers pause. Re-applying is safe: what was applied is ignored as duplicate.
            abortRecord();
            watermarks.forgetPending();
            retryBatch = batch;
            retryBackoffNs = retryBackoffNs == 0 ? MIN_RETRY_BACKOFF_NS : Math.min(2 * retryBackoffNs, MAX_RETRY_BACKOFF_NS);
            retryAtNs = nanoClock.getAsLong() + retryBackoffNs;
            recordWalError(e);
        }
    }

    /** Logged once per episode (the held batch is retried every loop turn until the write succeeds). */
    private void recordWalError(IOException e) {
        lastWalError = e;
        boolean first = walErrorMessage == null;
        walErrorMessage = "shard " + index + " cannot write its WAL in " + options.walDirectory() + ": " + e.getMessage();
        if (first) {
            LOG.log(System.Logger.Level.ERROR, walErrorMessage + "; its batches are held and retried, the Kafka"
                    + " partitions feeding it pause until the write succeeds");
        }
    }

    /** Why ingestion is held, if it is (e.g. the disk is full); null when healthy. Any thread. */
    public String walError() {
        return walErrorMessage;
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
    void closeWithoutCheckpoint() throws IOException {
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
            if (checkpoints != null) {
                checkpoints.close();
            }
            store.close();
        }
    }

    /** Checkpoints (if the shard started), syncs and closes the WAL and the chunk file, frees memory. Shard thread. */
    @Override
    public void close() throws IOException {
        if (checkpointOnClose && !closed && wal != null && replayed && retryBatch == null) {
            checkpoint();
        }
        closeWithoutCheckpoint();
    }

    // ---------------------------------------------------------------- applying a batch

    private void apply(ShardBatch batch) throws IOException {
        int entries = resolveSeries(batch);
        appendSamples(batch, entries);
        watermarks.writeOffsets(wal);
    }

    /** Pass 1: finds or creates the series of every SERIES entry (writing SERIES records), notes offsets. */
    private int resolveSeries(ShardBatch batch) throws IOException {
        watermarks.beginBatch();
        boolean skip = false;
        int entries = 0;
        for (ShardBatch.Reader r = reader.wrap(batch); r.next(); ) {
            switch (r.type()) {
                case ShardBatch.RECORD -> {
                    skip = r.offset() <= appliedOffset(r.streamId());
                    watermarks.touch(r.streamId(), r.offset());
                }
                case ShardBatch.WATERMARK -> watermarks.touch(r.streamId(), r.offset());
                case ShardBatch.CONTINUES -> watermarks.holdBefore(r.streamId(), r.offset());
                case ShardBatch.SERIES -> {
                    if (entries == entryIds.length) {
                        entryIds = Arrays.copyOf(entryIds, entries * 2);
                    }
                    if (skip) {
                        stats.add(ShardStats.Counter.SAMPLES_ALREADY_APPLIED, r.sampleCount());
                        entryIds[entries++] = SKIPPED;
                    } else {
                        entryIds[entries++] = resolve(r);
                    }
                }
                default -> throw new IllegalStateException("unknown batch entry " + r.type());
            }
        }
        return entries;
    }

    private int resolve(ShardBatch.Reader r) throws IOException {
        byte[] bytes = r.array();
        int off = r.labelsOffset();
        int len = r.labelsLength();
        int id = registry.find(r.hash(), r.segment(), off, len, labelsMatcher);
        if (id != SeriesRegistry.ABSENT) {
            return id;
        }
        if (store.count() >= options.maxSeries() || len > LabelArena.MAX_LABELS_BYTES) {
            stats.increment(ShardStats.Counter.SERIES_REJECTED_LIMIT);
            stats.add(ShardStats.Counter.SAMPLES_SERIES_LIMIT, r.sampleCount());
            return REJECTED;
        }
        // The SERIES record goes first: if the WAL cannot take it, nothing was created.
        int newId = store.count();
        long p = wal.claim(HeadRecordType.SERIES, SeriesRecord.maxEntryBytes(len));
        long end = SeriesRecord.write(wal.mapping(), p, newId, bytes, off, len);
        wal.commit((int) (end - p));
        createSeries(r.hash(), bytes, off, len);
        return newId;
    }

    /** Creates a series in the store, the registry and the index (also used by replay). */
    int createSeries(long hash, byte[] labels, int offset, int length) {
        int id = store.create(hash, labels, offset, length);
        registry.insert(hash, id);
        seriesIndex.add(id, labels, offset, length);
        stats.increment(ShardStats.Counter.SERIES_CREATED);
        if (replayed) {
            activeSeries++;
        }
        return id;
    }

    /** Pass 2: appends the samples and encodes the accepted ones into SAMPLES records. */
    private void appendSamples(ShardBatch batch, int entries) throws IOException {
        int entry = 0;
        long remaining = batch.sampleCount();
        for (ShardBatch.Reader r = reader.wrap(batch); r.next(); ) {
            if (r.type() != ShardBatch.SERIES) {
                continue;
            }
            int id = entryIds[entry++];
            int n = r.sampleCount();
            if (id < 0) {
                remaining -= n;
                continue;
            }
            for (int i = 0; i < n; i++, remaining--) {
                long t = r.timestamp(i);
                long v = r.valueBits(i);
                if (!recordOpen) {
                    openRecord(remaining, t);
                }
                switch (store.append(id, t, v)) {
                    case SeriesStore.APPENDED -> {
                        samplesEncoder.add(id, t, v);
                        stats.increment(ShardStats.Counter.SAMPLES_APPENDED);
                        if (++recordEntries == recordCapacity) {
                            closeRecord();
                        }
                    }
                    case SeriesStore.DUPLICATE -> stats.increment(ShardStats.Counter.SAMPLES_DUPLICATE);
                    case SeriesStore.OUT_OF_ORDER -> stats.increment(ShardStats.Counter.SAMPLES_OUT_OF_ORDER);
                    default -> stats.increment(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP);
                }
            }
        }
        if (recordOpen) {
            closeRecord();
        }
        assert entry == entries : "entries " + entry + " != " + entries;
    }

    private void openRecord(long remainingSamples, long baseTimestamp) throws IOException {
        recordCapacity = (int) Math.min(remainingSamples, maxSamplesPerRecord);
        long p = wal.claim(HeadRecordType.SAMPLES, SamplesRecord.maxPayloadBytes(recordCapacity));
        samplesEncoder.begin(wal.mapping(), p, wal.segmentIndex(), baseTimestamp);
        recordEntries = 0;
        recordOpen = true;
    }

    private void closeRecord() {
        recordOpen = false;
        if (recordEntries == 0) {
            wal.abort();
        } else {
            wal.commit(samplesEncoder.length());
        }
    }

    private void abortRecord() {
        if (recordOpen) {
            recordOpen = false;
            wal.abort();
        }
    }

    /** Streams this shard has a slot for (ids 0..n-1). Shard thread. */
    int knownStreams() {
        return watermarks.known();
    }

    /** The highest offset of {@code streamId} this shard applied, -1 if none. Shard thread. */
    long appliedOffset(int streamId) {
        return watermarks.applied(streamId);
    }

    /** Replay: an OFFSETS entry read back from the WAL. */
    void restoreWatermark(int streamId, long offset) {
        watermarks.restore(streamId, offset);
    }

    /** After a sync every written OFFSETS record is durable: publish the applied watermarks. */
    void publishDurable() {
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
        return replayed ? activeSeries : store.count();
    }

    /** Copies series {@code id} (labels and the chunks overlapping the range) into {@code into}. Any thread. */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        store.snapshot(id, minTimeMs, maxTimeMs, into);
    }

    /**
     * Whether series {@code id} may have samples in [minTimeMs, maxTimeMs], from its first and last
     * timestamps: copies nothing. False means none; true may still find no chunk in range (a gap).
     * Any thread.
     */
    boolean mayOverlap(int id, long minTimeMs, long maxTimeMs) {
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
    byte[] labelsCopy(int id) {
        byte[] labels = new byte[store.labelsLength(id)];
        store.copyLabels(id, labels);
        return labels;
    }

    /** The label index (symbols and postings) of this shard, for selection. Any thread. */
    public ShardIndex labelIndex() {
        return seriesIndex;
    }

    /** Off-heap bytes this shard holds (series, labels, chunks); the WAL's mappings are in its metrics. */
    public long offHeapBytes() {
        return store.reservedBytes();
    }

    /**
     * What the series of this shard cost beyond their label text and sample data: the per-series
     * structs, the registry, the postings and the symbol table's per-symbol overhead. Shard thread
     * (or a quiescent shard).
     */
    public MemoryReport memoryReport() {
        return new MemoryReport(store.count(), store.structBytes(), registry.footprintBytes(), seriesIndex.postingsHeapBytes(),
                seriesIndex.symbols().heapBytes() - seriesIndex.symbols().symbolBytes(), store.labelBytes(),
                seriesIndex.symbols().symbolBytes(), store.chunkBytesInUse());
    }

    /** A breakdown of a shard's memory; {@link #overheadBytesPerSeries()} is the figure to watch. */
    public record MemoryReport(int series, long structBytes, long registryBytes, long postingsBytes, long symbolOverheadBytes,
                               long labelTextBytes, long symbolTextBytes, long chunkBytes) {
        public double overheadBytesPerSeries() {
            return series == 0 ? 0 : (double) (structBytes + registryBytes + postingsBytes + symbolOverheadBytes) / series;
        }
    }

    public long chunkBytesInUse() {
        return store.chunkBytesInUse();
    }

    /** The WAL, for metrics and inspection. */
    public Wal wal() {
        return wal;
    }

    IOException lastWalError() {
        return lastWalError;
    }
}
