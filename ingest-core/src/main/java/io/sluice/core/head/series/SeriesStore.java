package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CHUNK_END_OFFSET;
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

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorAppender;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileMappings;
import io.sluice.core.head.read.SeriesSnapshot;
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

    /** {@link #chunkStep}'s step for a run's first sub-run: wrap the appender to the open block (above the appender's stops). */
    private static final int STEP_WRAP = XorAppender.RUN_FULL + 1;

    /** Results of {@link #append}. */
    public static final int APPENDED = 0;
    public static final int OUT_OF_ORDER = 1;
    public static final int DUPLICATE = 2;
    static final int DUPLICATE_TIMESTAMP = 3;

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
    private final long chunkRangeMs;
    private final XorAppender appender = new XorAppender(); // shard thread only
    private volatile MemorySegment[] pages = new MemorySegment[0];
    private volatile int count;        // published after the new series' struct is complete
    private ChunkSink chunkSink = ChunkSink.NONE; // shard thread
    private long newestTimestampMs = Long.MIN_VALUE; // shard thread: the newest sample of any series (idle eviction's clock)
    private long stepOpen = ChunkHandle.NONE; // shard thread: the open block chunkStep left (its second result)

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
        this.chunkRangeMs = chunkRangeMs;
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
        return newestTimestampMs;
    }

    public void noteRestoredMaxTime(long maxTimeMs) {
        newestTimestampMs = Math.max(newestTimestampMs, maxTimeMs);
    }

    public void chunkSink(ChunkSink sink) {
        this.chunkSink = sink;
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
     * Appends a sample with Prometheus' rules: older than the last → {@link #OUT_OF_ORDER}; same
     * timestamp and bits → {@link #DUPLICATE} (ignored); same timestamp, other bits →
     * {@link #DUPLICATE_TIMESTAMP}; else {@link #APPENDED}.
     */
    public int append(int id, long timestampMs, long valueBits) {
        MemorySegment s = page(id);
        long b = base(id);
        long maxTime = s.get(LONG, b + MAX_TIME_OFFSET);
        if (maxTime != NO_SAMPLES) {
            if (timestampMs < maxTime) {
                return OUT_OF_ORDER;
            }
            if (timestampMs == maxTime) {
                return lastValueBits(id) == valueBits ? DUPLICATE : DUPLICATE_TIMESTAMP;
            }
        }
        long state = b + XOR_STATE_OFFSET;
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long chunkEnd = s.get(LONG, b + CHUNK_END_OFFSET);
        if (open == ChunkHandle.NONE) {
            open = replaceOpenBlock(s, b, ChunkHandle.NONE, chunks.allocate(ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES));
            chunkEnd = ChunkCutPolicy.chunkRangeEndMs(timestampMs, chunkRangeMs);
            if (maxTime == NO_SAMPLES) { // the series' first sample (not after an idle cut or a restore without an open chunk)
                MIN_TIME.setOpaque(s, b + MIN_TIME_OFFSET, timestampMs);
            }
            wrapOpen(s, state, open);
        } else {
            wrapOpen(s, state, open);
            if (ChunkCutPolicy.mustCutBefore(timestampMs, appender.numSamples(), appender.byteLength(), chunkEnd)) {
                open = cut(id, s, b, open);
                chunkEnd = ChunkCutPolicy.chunkRangeEndMs(timestampMs, chunkRangeMs);
                wrapOpen(s, state, open);
            }
        }
        if (!appender.append(timestampMs, valueBits)) {
            int grown = ChunkCutPolicy.grownCapacityBytes(ChunkHandle.capacityBytes(open));
            open = replaceOpenBlock(s, b, open, chunks.copy(open, appender.byteLength(), grown));
            wrapOpen(s, state, open);
            if (!appender.append(timestampMs, valueBits)) {
                throw new IllegalStateException("append failed after growing the open chunk to " + grown + " bytes");
            }
        }
        s.set(LONG, b + CHUNK_END_OFFSET, ChunkCutPolicy.chunkEndAfterAppendMs(
                chunkEnd, appender.numSamples(), appender.firstTimestampMs(), timestampMs));
        MAX_TIME.setOpaque(s, b + MAX_TIME_OFFSET, timestampMs);
        if (timestampMs > newestTimestampMs) {
            newestTimestampMs = timestampMs;
        }
        return APPENDED;
    }

    /**
     * Appends a run of series {@code id}'s samples, {@code timestampsMs[from..to)} with
     * {@code valueBits[from..to)} in the order received, with exactly the outcome of calling
     * {@link #append} for each in turn: the same samples skipped (counted into {@code counts} by
     * kind), the same chunk bytes, cuts, chunk end, min and max time. Returns how many were appended
     * (also added to {@code counts.appended}).
     *
     * <p>Why: per sample, {@link #append} re-reads the struct, re-wraps the appender and re-checks the
     * segment; a run keeps all of that in locals ({@link XorAppender#appendRun}) and does the struct
     * work once per sub-run: between sub-runs it applies the append rules to a sample not after the
     * last, cuts, or grows the block. A block for a run is sized from what is left of the run and the
     * bytes per sample so far ({@link ChunkCutPolicy#grownRunCapacityBytes},
     * {@link ChunkCutPolicy#nextChunkCapacityBytes}), so a long run skips most of the
     * 64 -> 128 -> 256 -> 512 -> 1040 copies; the chunk bytes do not depend on the block size.
     *
     * <p>The JIT's view: this method is the per-sub-run loop only; what happens once per chunk or
     * once per run is in {@link #chunkStep}, which C2 does not inline (see there).
     *
     * <p>Readers see each sub-run's samples at once (one cursor publication), never a torn chunk. Shard thread.
     */
    public int appendRun(int id, long[] timestampsMs, long[] valueBits, int from, int to, AppendCounts counts) {
        MemorySegment s = page(id);
        long b = base(id);
        long maxTime = s.get(LONG, b + MAX_TIME_OFFSET);
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long chunkEnd = s.get(LONG, b + CHUNK_END_OFFSET);
        int appended = 0;
        int stop = STEP_WRAP; // the first sub-run wraps the appender (in chunkStep: once per run)
        int i = from;
        while (i < to) {
            long t = timestampsMs[i];
            if (maxTime != NO_SAMPLES && t <= maxTime) {
                counts.add(t < maxTime ? OUT_OF_ORDER : lastValueBits(id) == valueBits[i] ? DUPLICATE : DUPLICATE_TIMESTAMP);
                i++;
                continue;
            }
            int next;
            // A chunk boundary (no block yet, a cut, a full block): once per ~120 samples, out of line
            // (chunkStep). Otherwise the sub-run's codes: the hot path.
            if (open == ChunkHandle.NONE | stop >= XorAppender.RUN_CUT) { // STEP_WRAP too
                next = chunkStep(id, s, b, open, stop, maxTime, timestampsMs, valueBits, i, to, chunkEnd);
                open = stepOpen;
            } else {
                next = appender.appendRun(timestampsMs, valueBits, i, to, chunkEnd);
            }
            chunkEnd = appender.runChunkEndMs();
            stop = appender.runStop();
            if (next > i) {
                appended += next - i;
                maxTime = timestampsMs[next - 1];
                MAX_TIME.setOpaque(s, b + MAX_TIME_OFFSET, maxTime);
                i = next;
            } else if (stop == XorAppender.RUN_NOT_AFTER && timestampsMs[i] > maxTime) {
                // The chunk's last timestamp is its series' max time, so the rules above take this sample;
                // a struct where they differ is broken: fail instead of looping on it.
                throw new IllegalStateException("series " + id + ": open chunk ends after the max time " + maxTime);
            }
        }
        s.set(LONG, b + CHUNK_END_OFFSET, chunkEnd);
        if (maxTime > newestTimestampMs) {
            newestTimestampMs = maxTime;
        }
        counts.appended += appended;
        return appended;
    }

    /**
     * {@link #appendRun}'s work at a chunk boundary, once per ~120 samples, and at the start of a run
     * ({@link #STEP_WRAP}: wraps the appender to the open block; so the wrap, too, is compiled here and not
     * in {@code appendRun}, where whether C2 inlined it depended on what it had compiled before). It gives the series a block
     * ({@code open} is NONE: the first one, or the first after an idle cut), cuts ({@code stop} is
     * {@link XorAppender#RUN_CUT}: closes the chunk to the closed list and the chunk sink, opens a
     * block sized from what is left of the run) or grows the block ({@link XorAppender#RUN_FULL}),
     * then goes on appending from sample {@code i} ({@link XorAppender#appendRun}). Returns the index of the first sample not
     * taken; the open block is left in {@link #stepOpen}, the outcome in the appender
     * ({@link XorAppender#runStop}, {@link XorAppender#runChunkEndMs}).
     *
     * <p>Why one method, and why this long: C2 inlines a call it finds hot (as this one is: about one
     * per run) when the callee has at most {@code FreqInlineSize} (325) bytes of bytecode, and then
     * everything below it (allocation, the chunk file write, the closed list, block copies): with the
     * per-sample encoder that was ~10 KB of bytecode that made {@code appendRun}'s compile large and, depending on which callees
     * happened to be compiled first, different from run to run. All chunk-boundary work is here, in
     * more bytecode than that limit ({@code AppendJitShapeTest} checks it), so it is compiled on its
     * own and {@code appendRun}'s graph is the loop alone, the same in every run. Shard thread.
     */
    private int chunkStep(int id, MemorySegment s, long b, long open, int stop, long maxTime,
                          long[] timestampsMs, long[] valueBits, int i, int to, long chunkEndMs) {
        long state = b + XOR_STATE_OFFSET;
        long t = timestampsMs[i];
        long chunkEnd = chunkEndMs;
        long fresh;
        long current = open;
        // The first block is its own test, ahead of the dispatch on stop, and then takes the run-start
        // arm (STEP_WRAP: a block without a series' block is always at a run's start) like any later
        // run: so every outcome below shows from each series' first run, before C2 compiles this.
        // (As one arm of the dispatch, a run's start on a block the series already had came only with
        // each series' second run, after the compile: a trap, a recompile, and a storm of
        // deoptimisations if C2 had compiled that trap with action "none"; see ClosedChunkLists.add.)
        assert open != ChunkHandle.NONE || stop == STEP_WRAP : "series " + id + " lost its block inside a run";
        if (open == ChunkHandle.NONE) {
            current = chunks.allocate(ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
            int seq = SeriesSeqLock.begin(s, b);
            s.set(LONG, b + OPEN_CHUNK_OFFSET, current);
            SeriesSeqLock.end(s, b, seq);
            chunkEnd = ChunkCutPolicy.chunkRangeEndMs(t, chunkRangeMs);
            if (maxTime == NO_SAMPLES) { // as in append: the series' first sample
                MIN_TIME.setOpaque(s, b + MIN_TIME_OFFSET, t);
            }
        }
        if (stop == XorAppender.RUN_CUT) {
            fresh = chunks.allocate(ChunkCutPolicy.nextChunkCapacityBytes(appender.byteLength(), appender.numSamples(), to - i));
            closeOpen(id, s, b, open, fresh);
            chunkEnd = ChunkCutPolicy.chunkRangeEndMs(t, chunkRangeMs);
        } else if (stop == XorAppender.RUN_FULL) {
            int grown = ChunkCutPolicy.grownRunCapacityBytes(ChunkHandle.capacityBytes(open), appender.bitLength(),
                    appender.numSamples(), appender.firstTimestampMs(), to - i);
            fresh = chunks.copy(open, appender.byteLength(), grown);
            int seq = SeriesSeqLock.begin(s, b);
            s.set(LONG, b + OPEN_CHUNK_OFFSET, fresh);
            SeriesSeqLock.end(s, b, seq);
            chunks.free(open);
        } else { // STEP_WRAP: a run's first sub-run, on the series' block or the first one just made
            fresh = current;
        }
        wrapOpen(s, state, fresh);
        stepOpen = fresh;
        int next = appender.appendRun(timestampsMs, valueBits, i, to, chunkEnd);
        // A fresh block (not the one the series had) that took no sample and asks for another: as
        // arithmetic, so the one branch is the never-taken throw ("fresh != open" as a boolean was a
        // branch whose "same block" outcome came only with each series' second run, after the compile).
        long brokenBit = (1 - ChunkCutPolicy.lessThanBit(appender.runStop(), XorAppender.RUN_CUT))
                & (1 - ChunkCutPolicy.lessThanBit(i, next))
                & (ChunkCutPolicy.lessThanBit(fresh, open) | ChunkCutPolicy.lessThanBit(open, fresh));
        if (brokenBit != 0) {
            // A fresh block that cannot take the sample it was made for: a broken size rule, not a
            // state to retry (the loop would allocate forever).
            throw new IllegalStateException("series " + id + ": a new block of " + ChunkHandle.capacityBytes(fresh)
                    + " bytes took no sample (stop " + appender.runStop() + ")");
        }
        return next;
    }

    private void wrapOpen(MemorySegment s, long state, long open) {
        appender.wrap(s, state, chunks.page(open), ChunkMemory.offset(open), ChunkHandle.capacityBytes(open));
    }

    /** Points the series at a new open block under the sequence lock and frees the old one. */
    private long replaceOpenBlock(MemorySegment s, long b, long old, long replacement) {
        int seq = SeriesSeqLock.begin(s, b);
        s.set(LONG, b + OPEN_CHUNK_OFFSET, replacement);
        SeriesSeqLock.end(s, b, seq);
        if (old != ChunkHandle.NONE) {
            chunks.free(old);
        }
        return replacement;
    }

    /**
     * Closes the open chunk (the appender wraps it): hands its block to the closed list and its bytes
     * to the chunk sink, and makes {@code fresh} (NONE or a new block) the open block.
     */
    private void closeOpen(int id, MemorySegment s, long b, long open, long fresh) {
        long firstMs = appender.firstTimestampMs();
        long lastMs = appender.lastTimestampMs();
        long ref = chunkSink.persist(id, chunks.page(open), ChunkMemory.offset(open), appender.byteLength(),
                firstMs, lastMs, appender.numSamples());
        int seq = SeriesSeqLock.begin(s, b);
        closed.add(s, b, open, firstMs, lastMs, ref);
        s.set(LONG, b + OPEN_CHUNK_OFFSET, fresh);
        XorStateDescriptor.reset(s, b + XOR_STATE_OFFSET);
        SeriesSeqLock.end(s, b, seq);
    }

    /** Closes the open chunk and starts an empty small open block. */
    private long cut(int id, MemorySegment s, long b, long open) {
        long fresh = chunks.allocate(ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
        closeOpen(id, s, b, open, fresh);
        return fresh;
    }

    /**
     * Idle series: closes its open chunk to the chunk files and leaves it without an open block (the
     * next sample starts a new chunk). It stays queryable. Returns false if it had no open chunk.
     */
    public boolean cutIdle(int id) {
        MemorySegment s = page(id);
        long b = base(id);
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        if (open == ChunkHandle.NONE) {
            return false;
        }
        wrapOpen(s, b + XOR_STATE_OFFSET, open);
        if (appender.numSamples() == 0) {
            replaceOpenBlock(s, b, open, ChunkHandle.NONE);
            return false;
        }
        long lastValue = lastValueBits(id);
        closeOpen(id, s, b, open, ChunkHandle.NONE);
        // Duplicate detection compares the next sample with the last value: keep it (the appender
        // writes a chunk's first value whole and overwrites this).
        s.set(LONG, b + XOR_STATE_OFFSET + XorStateDescriptor.LAST_VALUE_BITS_OFFSET, lastValue);
        return true;
    }

    /**
     * Copies series {@code id}'s labels and the chunks overlapping [minTimeMs, maxTimeMs] into
     * {@code into}. Any thread; retries while the writer moves the series' blocks.
     */
    public void snapshot(int id, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        MemorySegment s = page(id);
        long b = base(id);
        int stuckReads = 0;
        while (true) {
            int seq = (int) SEQ.getAcquire(s, b + SEQ_OFFSET);
            if ((seq & 1) == 0) {
                into.reset(id, minTimeMs, maxTimeMs);
                into.setLabels(this, id);
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
     */
    private boolean copyChunks(MemorySegment s, long b, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        if (!closed.copyInRange(s, b, minTimeMs, maxTimeMs, into)) {
            return false;
        }
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long state = b + XOR_STATE_OFFSET;
        int openSamples = XorStateDescriptor.publishedNumSamples(s, state);
        if (open != ChunkHandle.NONE && openSamples > 0
                && s.get(LONG, state + XorStateDescriptor.FIRST_TIMESTAMP_OFFSET) <= maxTimeMs) {
            into.addChunk(chunks.page(open), ChunkMemory.offset(open), ChunkHandle.capacityBytes(open), openSamples);
        }
        return true;
    }

    // ---------------------------------------------------------------- chunk files, retention (shard thread)

    /**
     * The chunk file writer's {@link io.sluice.core.head.chunkfiles.ChunkFileWriter.FlushListener}: it wrote
     * chunk {@code refs[i]} of series {@code ids[i]} for {@code i < count} (see {@link ClosedChunkLists#flushed}).
     */
    public void chunksFlushed(int[] ids, long[] refs, int count) {
        for (int i = 0; i < count; i++) {
            int id = ids[i];
            closed.flushed(page(id), base(id), refs[i]);
        }
    }

    /** Retention: see {@link ClosedChunkLists#dropExpired}; returns how many chunks were dropped. */
    public int dropExpired(int id, long cutoffMs) {
        return closed.dropExpired(page(id), base(id), cutoffMs);
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
        return closed.persistAgain(page(id), base(id), index, id, chunkSink);
    }

    /** Bytes the open chunk of {@code id} holds (0 if it has none). */
    public int openByteLength(int id) {
        MemorySegment s = page(id);
        long b = base(id);
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        if (open == ChunkHandle.NONE) {
            return 0;
        }
        wrapOpen(s, b + XOR_STATE_OFFSET, open);
        return appender.byteLength();
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
        replaceOpenBlock(page(id), base(id), ChunkHandle.NONE, handle);
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
