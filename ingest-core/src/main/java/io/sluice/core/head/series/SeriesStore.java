package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_CAPACITY_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_COUNT_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_FILE_REF;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_LIST_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.FLAGS_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.FLAG_EVICTED;
import static io.sluice.core.head.series.SeriesDescriptor.HASH_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.LABELS_LENGTH_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.LABELS_REF_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MAX_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.NO_SAMPLES;
import static io.sluice.core.head.series.SeriesDescriptor.OPEN_CHUNK_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.SEQ_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.STRIDE;
import static io.sluice.core.head.series.SeriesDescriptor.XOR_STATE_OFFSET;

import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileMappings;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A shard's series: fixed-stride structs ({@link SeriesDescriptor}) in off-heap pages, their label
 * bytes in a {@link LabelArena}, their open chunks in a {@link ChunkMemory}, their closed chunks in
 * the shard's chunk files, read through read-only mappings ({@link ChunkFileMappings}).
 *
 * <p>Closed chunks: a cut hands the open block over as the closed chunk's block and gives the bytes
 * to the {@link ChunkSink} (the chunk file writer's buffer). Once the writer has written them to the
 * file it calls {@link #chunksFlushed}: under the series' sequence lock the entry's handle becomes
 * NONE and the block is freed; from then on readers copy the chunk from the mapping. So memory
 * holds per closed chunk only its 32-byte list entry, and the list has no length cap
 * ({@link ClosedListAllocator}).
 *
 * <p>Threads: one writer, the shard worker, calls everything but {@link #snapshot} and the read
 * accessors marked "any thread". Readers take a {@link SeriesSnapshot}: a copy of the series'
 * labels and of the chunk bytes in a time range, validated by the series' sequence lock, so they
 * never see a torn chunk however the writer moves blocks. Plain appends to the open chunk do not
 * touch the lock: the appender publishes the sample count with release after the bytes.
 */
public final class SeriesStore implements AutoCloseable {
    static final int SERIES_PER_PAGE = 1024;
    private static final int PAGE_SHIFT = Integer.numberOfTrailingZeros(SERIES_PER_PAGE);
    private static final long PAGE_BYTES = (long) SERIES_PER_PAGE * STRIDE;
    /** Implausible reads of an unchanged series before a snapshot gives up (a race resolves in one retry). */
    private static final int MAX_STUCK_READS = 1_000;

    /** Results of {@link #append}. */
    public static final int APPENDED = 0;
    /** Older than its series' newest and than the out-of-order window allows: rejected. */
    public static final int TOO_OLD = 1;
    public static final int DUPLICATE = 2;
    public static final int DUPLICATE_TIMESTAMP = 3;
    /** Older than its series' newest, inside the out-of-order window: stored in the {@link OutOfOrderStore}. */
    public static final int APPENDED_OUT_OF_ORDER = 4;
    /** {@link #outOfOrderWindowMs(long)}: accept every late sample (replay: the WAL holds only accepted samples). */
    public static final long UNLIMITED_WINDOW = Long.MAX_VALUE;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle SEQ = INT.varHandle();
    private static final VarHandle CLOSED_COUNT = INT.varHandle();
    private static final VarHandle MAX_TIME = LONG.varHandle();
    private static final VarHandle MIN_TIME = LONG.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemoryAccounting accounting;
    private final ChunkMemory chunks;
    private final ClosedListAllocator lists;
    private final ClosedChunkLists closed;
    private final LabelArena labels;
    private final SeriesAppender appends;     // shard thread only
    private final OutOfOrderStore outOfOrder = new OutOfOrderStore();
    private final SeriesSnapshot probe = new SeriesSnapshot();   // shard thread: duplicate checks of late samples
    private final long[] found = new long[1];                     // shard thread
    private long outOfOrderWindowMs;                              // shard thread; 0: no late sample is stored
    private volatile MemorySegment[] pages = new MemorySegment[0];
    private volatile int count;        // published after the new series' struct is complete

    /** Where cut chunks go besides memory (the shard's chunk files). Shard thread. */
    public interface ChunkSink {
        ChunkSink NONE = (id, page, offset, length, minTimeMs, maxTimeMs, numSamples) -> 0L;

        /** Persists a cut chunk; returns its chunk file ref, or 0 if it could not (written at the next checkpoint). */
        long persist(int seriesId, MemorySegment page, long offset, int length, long minTimeMs, long maxTimeMs, int numSamples);
    }

    public SeriesStore(MemoryAccounting accounting, long chunkRangeMs) {
        this.accounting = accounting;
        this.chunks = new ChunkMemory(accounting);
        this.lists = new ClosedListAllocator(chunks, accounting);
        this.closed = new ClosedChunkLists(chunks, lists);
        this.labels = new LabelArena(accounting);
        this.appends = new SeriesAppender(chunks, closed, chunkRangeMs, this::late);
    }

    /**
     * How much older than the shard's newest sample a late sample (older than its series' newest) may
     * be and still be stored; 0 (the default): none is, {@link #UNLIMITED_WINDOW}: all are. Shard thread.
     */
    public void outOfOrderWindowMs(long windowMs) {
        if (windowMs < 0) {
            throw new IllegalArgumentException("out-of-order window " + windowMs + " < 0");
        }
        this.outOfOrderWindowMs = windowMs;
    }

    public long outOfOrderWindowMs() {
        return outOfOrderWindowMs;
    }

    /** The series' out-of-order samples (checkpoints, memory reports). */
    public OutOfOrderStore outOfOrder() {
        return outOfOrder;
    }

    /**
     * The out-of-order rules for sample (t, v) of series {@code id}, older than its newest: a sample at
     * a timestamp the series already holds (in order or out of order) is a {@link #DUPLICATE} when its
     * value bits are equal, else a {@link #DUPLICATE_TIMESTAMP}; otherwise it is stored
     * ({@link #APPENDED_OUT_OF_ORDER}) if it is inside the window of the shard's newest sample, else
     * {@link #TOO_OLD}. Off the in-order path: only samples older than their series' newest come here.
     * Shard thread.
     */
    private int late(int id, long timestampMs, long valueBits) {
        MemorySegment s = page(id);
        long b = base(id);
        // Before the series' first sample (in order or not) nothing can be there: a backfill of older
        // data costs no chunk copy per sample.
        if (timestampMs >= (long) MIN_TIME.getOpaque(s, b + MIN_TIME_OFFSET)) {
            snapshotChunks(id, s, b, timestampMs, timestampMs, probe, null);
            for (SeriesSnapshot.Samples it = probe.samples(); it.next(); ) {
                if (it.timestampMs() == timestampMs) {
                    return it.valueBits() == valueBits ? DUPLICATE : DUPLICATE_TIMESTAMP;
                }
            }
            if (outOfOrder.find(id, timestampMs, found)) {
                return found[0] == valueBits ? DUPLICATE : DUPLICATE_TIMESTAMP;
            }
        }
        long window = outOfOrderWindowMs;
        if (window != UNLIMITED_WINDOW && timestampMs < appends.newestTimestampMs() - window) {
            return TOO_OLD;
        }
        outOfOrder.add(id, timestampMs, valueBits);
        if (timestampMs < (long) MIN_TIME.getOpaque(s, b + MIN_TIME_OFFSET)) {
            MIN_TIME.setOpaque(s, b + MIN_TIME_OFFSET, timestampMs);
        }
        return APPENDED_OUT_OF_ORDER;
    }

    /** Series ids 0..count-1 exist. Any thread. */
    public int count() {
        return count;
    }

    /** The read-only mappings of the shard's chunk files (the chunk file writer maps what it creates). */
    public ChunkFileMappings mappings() {
        return closed.mappings();
    }

    /** The newest sample timestamp appended to any series (restored series included); Long.MIN_VALUE if none. */
    public long newestTimestampMs() {
        return appends.newestTimestampMs();
    }

    public void noteRestoredMaxTime(long maxTimeMs) {
        appends.noteNewest(maxTimeMs);
    }

    public void chunkSink(ChunkSink sink) {
        appends.chunkSink(sink);
    }

    public ChunkMemory chunkMemory() {
        return chunks;
    }

    private MemorySegment page(int id) {
        return pages[id >>> PAGE_SHIFT];
    }

    private static long base(int id) {
        return (long) (id & (SERIES_PER_PAGE - 1)) * STRIDE;
    }

    /** Creates a series and returns its id (dense, from 0). */
    public int create(long hash, byte[] labelBytes, int offset, int length) {
        int id = count;
        if ((id & (SERIES_PER_PAGE - 1)) == 0 && (id >>> PAGE_SHIFT) == pages.length) {
            MemorySegment page = arena.allocate(PAGE_BYTES, 64);
            accounting.allocated(MemoryTag.SERIES, PAGE_BYTES);
            MemorySegment[] grown = Arrays.copyOf(pages, pages.length + 1);
            grown[grown.length - 1] = page;
            pages = grown;
        }
        MemorySegment s = page(id);
        long b = base(id);
        s.asSlice(b, STRIDE).fill((byte) 0);
        s.set(INT, b + LABELS_LENGTH_OFFSET, length);
        s.set(LONG, b + LABELS_REF_OFFSET, length == 0 ? 0L : labels.add(labelBytes, offset, length)); // 0: an evicted id's placeholder
        s.set(LONG, b + HASH_OFFSET, hash);
        s.set(LONG, b + OPEN_CHUNK_OFFSET, ChunkHandle.NONE);
        s.set(LONG, b + CLOSED_LIST_OFFSET, ChunkHandle.NONE);
        s.set(LONG, b + MIN_TIME_OFFSET, NO_SAMPLES);
        s.set(LONG, b + MAX_TIME_OFFSET, NO_SAMPLES);
        XorStateDescriptor.reset(s, b + XOR_STATE_OFFSET);
        count = id + 1; // volatile write: publishes the struct
        return id;
    }

    public long hash(int id) {
        return page(id).get(LONG, base(id) + HASH_OFFSET);
    }

    /** Whether series {@code id} has exactly these canonical label bytes. */
    public boolean labelsEqual(int id, MemorySegment candidate, long offset, int length) {
        MemorySegment s = page(id);
        long b = base(id);
        if (s.get(INT, b + LABELS_LENGTH_OFFSET) != length) {
            return false;
        }
        long ref = s.get(LONG, b + LABELS_REF_OFFSET);
        return MemorySegment.mismatch(labels.page(ref), LabelArena.offset(ref), LabelArena.offset(ref) + length,
                candidate, offset, offset + length) == -1;
    }

    /** Copies the canonical label bytes of {@code id} into {@code target}; returns their length. Any thread. */
    public int copyLabels(int id, byte[] target) {
        MemorySegment s = page(id);
        long b = base(id);
        int length = s.get(INT, b + LABELS_LENGTH_OFFSET);
        if (length == 0) {
            return 0; // a placeholder: no label bytes in the arena
        }
        long ref = s.get(LONG, b + LABELS_REF_OFFSET);
        MemorySegment.copy(labels.page(ref), ValueLayout.JAVA_BYTE, LabelArena.offset(ref), target, 0, length);
        return length;
    }

    public int labelsLength(int id) {
        return page(id).get(INT, base(id) + LABELS_LENGTH_OFFSET);
    }

    /** The last timestamp appended to {@code id}, or {@link SeriesDescriptor#NO_SAMPLES}. Any thread (opaque). */
    public long maxTime(int id) {
        return (long) MAX_TIME.getOpaque(page(id), base(id) + MAX_TIME_OFFSET);
    }

    /**
     * The first timestamp appended to {@code id} (also after its first chunks were cut), or
     * {@link SeriesDescriptor#NO_SAMPLES}. Any thread (opaque): with {@link #maxTime} a range check
     * that copies nothing (queries, {@code HeadQuery}).
     */
    public long minTime(int id) {
        return (long) MIN_TIME.getOpaque(page(id), base(id) + MIN_TIME_OFFSET);
    }

    /** The last value appended to {@code id} (valid when it has samples). Shard thread. */
    public long lastValueBits(int id) {
        return page(id).get(LONG, base(id) + XOR_STATE_OFFSET + XorStateDescriptor.LAST_VALUE_BITS_OFFSET);
    }

    /**
     * Appends a sample: newer than the series' last → {@link #APPENDED}; same timestamp and bits →
     * {@link #DUPLICATE} (ignored); same timestamp, other bits → {@link #DUPLICATE_TIMESTAMP}; older
     * than the last → the out-of-order rules ({@link #late}: {@link #APPENDED_OUT_OF_ORDER},
     * {@link #TOO_OLD} or a duplicate) ({@link SeriesAppender#append}). Shard thread.
     */
    public int append(int id, long timestampMs, long valueBits) {
        return appends.append(page(id), base(id), id, timestampMs, valueBits);
    }

    /**
     * Appends {@code timestampsMs[from..to)} with {@code valueBits[from..to)} to series {@code id} with
     * exactly the outcome of {@link #append} for each in turn, counted into {@code counts}; returns how
     * many were appended in order (those stored out of order are in {@code counts} only)
     * ({@link SeriesAppender#appendRun}). Shard thread.
     */
    public int appendRun(int id, long[] timestampsMs, long[] valueBits, int from, int to, AppendCounts counts) {
        return appends.appendRun(page(id), base(id), id, timestampsMs, valueBits, from, to, counts);
    }

    /**
     * Idle series: closes its open chunk to the chunk files and leaves it without an open block (the
     * next sample starts a new chunk). It stays queryable. Returns false if it had no open chunk.
     */
    public boolean cutIdle(int id) {
        return appends.cutIdle(page(id), base(id), id);
    }

    /**
     * Copies series {@code id}'s labels and the chunks overlapping [minTimeMs, maxTimeMs] into
     * {@code into}. A series with out-of-order samples is merged: its in-order samples in range and
     * its out-of-order ones in range become new time-ordered chunks of the snapshot
     * ({@link SeriesSnapshot#mergeOutOfOrder}), so every reader sees one time-ordered stream. Any
     * thread; retries while the writer moves the series' blocks.
     */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        snapshot(id, minTimeMs, maxTimeMs, into, null);
    }

    /**
     * {@link #snapshot}, with the series' canonical labels already copied by the reader ({@code labels},
     * e.g. for a sort; null: copy them): the snapshot refers to that array instead of copying the labels
     * again.
     */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into, byte[] labels) {
        snapshotChunks(id, page(id), base(id), minTimeMs, maxTimeMs, into, labels);
        OutOfOrderStore.Late late = outOfOrder.get(id);
        if (late != null) {
            long[] ts = new long[late.sampleCount()];
            long[] vs = new long[ts.length];
            int n = late.sortedInto(ts, vs, new io.sluice.core.chunk.XorIterator());
            into.mergeOutOfOrder(ts, vs, n);
        }
    }

    /** The in-order part of {@link #snapshot}. */
    private void snapshotChunks(int id, MemorySegment s, long b, long minTimeMs, long maxTimeMs, SeriesSnapshot into,
            byte[] labels) {
        int stuckReads = 0;
        while (true) {
            int seq = (int) SEQ.getAcquire(s, b + SEQ_OFFSET);
            if ((seq & 1) == 0) {
                into.reset(id, minTimeMs, maxTimeMs);
                if (labels == null) {
                    into.labelsCopied(copyLabels(id, into.labelBuffer(labelsLength(id))));
                } else {
                    into.labelsShared(labels);
                }
                boolean plausible;
                try {
                    plausible = copyChunks(s, b, minTimeMs, maxTimeMs, into);
                } catch (IllegalStateException unmapped) {
                    plausible = false; // a chunk file was unmapped under a stale ref: the retry reads the new list
                }
                VarHandle.loadLoadFence(); // every copy above happens before the re-check
                boolean unchanged = (int) SEQ.getOpaque(s, b + SEQ_OFFSET) == seq;
                if (plausible && unchanged) {
                    return;
                }
                if (!plausible && unchanged && ++stuckReads > MAX_STUCK_READS) {
                    // The writer moved nothing, yet the list names a chunk that cannot be read: a broken
                    // invariant, not a race. Fail the read instead of spinning forever.
                    throw new IllegalStateException("series " + id + ": its closed-chunk list names a chunk that cannot be read");
                }
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Copies the chunks in range; false if it met a handle that cannot be real (the list it read was
     * freed and reused meanwhile — the sequence check would fail too, but the handle must not be
     * dereferenced first).
     *
     * <p>The open chunk's state is read first: a range that starts within it needs no closed chunk.
     * It is cut at the published cursor (sample count and bit length of the same
     * sample). Its last timestamp is known without a decode when the appender's last timestamp equals
     * the series' max time read before the cursor: the appender writes its last timestamp before
     * publishing the cursor and the max time after (with release), so the max time read first is at
     * most the published last sample's, the appender's field at least that; equal, both are it. While
     * a sample is being appended they may differ: the chunk is then copied whole and decoded later
     * ({@link SeriesSnapshot#exactChunk}).
     */
    private boolean copyChunks(MemorySegment s, long b, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long state = b + XOR_STATE_OFFSET;
        long seriesMaxTime = (long) MAX_TIME.getAcquire(s, b + MAX_TIME_OFFSET); // before the cursor: see below
        if (into.newestOnly() && seriesMaxTime >= minTimeMs && seriesMaxTime <= maxTimeMs && newest(s, state, seriesMaxTime, into)) {
            return true; // no chunk copied
        }
        long cursor = XorStateDescriptor.publishedCursor(s, state);
        int openSamples = XorStateDescriptor.numSamples(cursor);
        long firstTime = s.get(LONG, state + XorStateDescriptor.FIRST_TIMESTAMP_OFFSET);
        boolean hasOpen = open != ChunkHandle.NONE && openSamples > 0;
        // Every closed chunk ends before the open chunk's first sample: none is in range when that
        // sample is at or before the range's start (a narrow window over recent data), and the
        // closed-chunk list is not read at all.
        if (!(hasOpen && firstTime <= minTimeMs) && !closed.copyInRange(s, b, minTimeMs, maxTimeMs, into)) {
            return false;
        }
        if (hasOpen && firstTime <= maxTimeMs) {
            long lastTime = s.get(LONG, state + XorStateDescriptor.LAST_TIMESTAMP_OFFSET);
            int bits = XorStateDescriptor.bitLength(cursor);
            if (lastTime == seriesMaxTime && bits > 0 && (bits + Byte.SIZE - 1) / Byte.SIZE <= ChunkHandle.capacityBytes(open)) {
                into.addOpenChunk(chunks.page(open), ChunkMemory.offset(open), bits, openSamples, firstTime, lastTime);
            } else {
                into.addChunk(chunks.page(open), ChunkMemory.offset(open), ChunkHandle.capacityBytes(open), openSamples);
            }
        }
        return true;
    }

    /**
     * Gives {@code into} the series' newest sample, at {@code seriesMaxTime} (its max time, read with
     * acquire), when the appender's state still describes it: its last timestamp is that time after its
     * last value was read (a later sample's value would come with a later timestamp, see
     * {@link XorStateDescriptor#lastValueBits}; a chunk cut resets the state under the sequence lock,
     * which the caller checks). False when an append moved on meanwhile, or the open chunk was cut.
     */
    private static boolean newest(MemorySegment s, long state, long seriesMaxTime, SeriesSnapshot into) {
        long lastValue = XorStateDescriptor.lastValueBits(s, state);
        if (s.get(LONG, state + XorStateDescriptor.LAST_TIMESTAMP_OFFSET) != seriesMaxTime) {
            return false;
        }
        into.newestSample(seriesMaxTime, lastValue);
        return true;
    }

    // ---------------------------------------------------------------- chunk files, retention (shard thread)

    /**
     * The chunk file writer's {@link io.sluice.core.head.chunkfiles.ChunkFileWriter.FlushListener}: it wrote
     * the chunk of series {@code ids[i]} listed at {@code appendedAt[i]} at {@code refs[i]}, for {@code i < count}
     * (see {@link ClosedChunkLists#flushed}).
     */
    public void chunksFlushed(int[] ids, long[] appendedAt, long[] refs, int count) {
        for (int i = 0; i < count; i++) {
            int id = ids[i];
            closed.flushed(page(id), base(id), appendedAt[i], refs[i]);
        }
    }

    /** Retention: see {@link ClosedChunkLists#dropExpired}; returns how many chunks were dropped. */
    public int dropExpired(int id, long cutoffMs) {
        MemorySegment s = page(id);
        long b = base(id);
        int dropped = closed.dropExpired(s, b, cutoffMs) + outOfOrder.dropExpired(id, cutoffMs);
        OutOfOrderStore.Late late = outOfOrder.get(id);
        if (late != null && late.minTimeMs() < (long) MIN_TIME.getOpaque(s, b + MIN_TIME_OFFSET)) {
            // The closed chunks' drop moved the first time to the oldest in-order chunk left; an
            // out-of-order sample kept may be older.
            MIN_TIME.setOpaque(s, b + MIN_TIME_OFFSET, late.minTimeMs());
        }
        return dropped;
    }


    // ---------------------------------------------------------------- checkpoints and eviction (shard thread)

    /** The page holding series {@code id}'s struct; fields at {@link #structBase(int)} + SeriesDescriptor offsets. */
    public MemorySegment struct(int id) {
        return page(id);
    }

    public static long structBase(int id) {
        return base(id);
    }

    public boolean isEvicted(int id) {
        return (page(id).get(INT, base(id) + FLAGS_OFFSET) & FLAG_EVICTED) != 0;
    }

    public int closedCount(int id) {
        return page(id).get(INT, base(id) + CLOSED_COUNT_OFFSET);
    }

    /** The chunk file ref of closed chunk {@code index} of {@code id} (0: not in a chunk file). */
    public long closedRef(int id, int index) {
        return closedEntry(id, index, CLOSED_ENTRY_FILE_REF);
    }

    /** A field (CLOSED_ENTRY_*) of closed chunk {@code index} of {@code id}. Shard thread. */
    public long closedEntry(int id, int index, int field) {
        return closed.entry(page(id), base(id), index, field);
    }

    /** Hands a closed chunk that has no chunk file ref yet to the sink again; returns its ref (0: failed again). */
    public long persistClosed(int id, int index) {
        return closed.persistAgain(page(id), base(id), index, id, appends.chunkSink());
    }

    /** Bytes the open chunk of {@code id} holds (0 if it has none). */
    public int openByteLength(int id) {
        return appends.openByteLength(page(id), base(id));
    }

    /**
     * Restore: lists {@code n} closed chunks that lie in the chunk files (no copy: read through the
     * mappings), from a checkpoint's (chunkRef, minTimeMs, maxTimeMs) triples at {@code src[at]}.
     */
    public void restoreClosed(int id, MemorySegment src, long at, int n) {
        closed.addByReference(page(id), base(id), src, at, n);
    }

    /** After a restore: frees what listing closed chunks by reference needed. Shard thread. */
    public void endRestore() {
        closed.endRestore();
    }

    /** Restore: makes {@code handle} the open block of {@code id}; the caller then fills the XOR state and times. */
    public void restoreOpen(int id, long handle) {
        appends.replaceOpenBlock(page(id), base(id), ChunkHandle.NONE, handle);
    }

    /** Restore: a placeholder for the id of a series evicted before the checkpoint (ids are dense and never reused). */
    public int createEvicted() {
        int id = create(0L, new byte[0], 0, 0);
        page(id).set(INT, base(id) + FLAGS_OFFSET, FLAG_EVICTED);
        return id;
    }

    /**
     * Drops an idle series' chunks (its id stays taken, its label bytes stay in the arena). Readers that
     * selected it before see no chunks after their retry. The caller removes it from the registry and index.
     */
    public void evict(int id) {
        MemorySegment s = page(id);
        long b = base(id);
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        int n = s.get(INT, b + CLOSED_COUNT_OFFSET);
        int seq = SeriesSeqLock.begin(s, b);
        CLOSED_COUNT.setRelease(s, b + CLOSED_COUNT_OFFSET, 0);
        s.set(LONG, b + CLOSED_LIST_OFFSET, ChunkHandle.NONE);
        s.set(INT, b + CLOSED_CAPACITY_OFFSET, 0);
        s.set(LONG, b + OPEN_CHUNK_OFFSET, ChunkHandle.NONE);
        XorStateDescriptor.reset(s, b + XOR_STATE_OFFSET);
        s.set(INT, b + FLAGS_OFFSET, s.get(INT, b + FLAGS_OFFSET) | FLAG_EVICTED);
        SeriesSeqLock.end(s, b, seq);
        outOfOrder.remove(id);
        closed.free(list, n);
        if (open != ChunkHandle.NONE) {
            chunks.free(open);
        }
    }

    /** Off-heap bytes this store reserved (struct pages, label pages, chunk pages). */
    public long reservedBytes() {
        return (long) pages.length * PAGE_BYTES + labels.reservedBytes() + chunks.reservedBytes() + lists.largeBytes();
    }

    /** Bytes of the per-series structs reserved (whole pages). */
    public long structBytes() {
        return (long) pages.length * PAGE_BYTES;
    }

    /** Bytes of label text stored (the arena's used part). */
    public long labelBytes() {
        return labels.usedBytes();
    }

    public long chunkBytesInUse() {
        return chunks.usedBytes();
    }

    @Override
    public void close() {
        accounting.released(MemoryTag.SERIES, (long) pages.length * PAGE_BYTES);
        pages = new MemorySegment[0];
        arena.close();
        labels.close();
        lists.close();
        chunks.close();
        closed.close();
    }
}
