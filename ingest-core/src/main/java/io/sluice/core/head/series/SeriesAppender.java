package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CHUNK_END_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MAX_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.NO_SAMPLES;
import static io.sluice.core.head.series.SeriesDescriptor.OPEN_CHUNK_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.XOR_STATE_OFFSET;
import static io.sluice.core.head.series.SeriesStore.APPENDED;
import static io.sluice.core.head.series.SeriesStore.DUPLICATE;
import static io.sluice.core.head.series.SeriesStore.DUPLICATE_TIMESTAMP;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorAppender;
import io.sluice.core.chunk.XorStateDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The write side of a {@link SeriesStore}: appends samples to a series' open chunk with
 * Prometheus' rules, one at a time ({@link #append}: live batches) or in runs ({@link #appendRun}:
 * replay), and cuts, grows and closes open chunks (the closed list and the chunk sink). Each method
 * takes the series' struct as {@code s} (its page) and {@code b} (its base offset).
 *
 * <p>Threads: the shard thread only. What readers may see mid-way is published under the series'
 * sequence lock ({@link SeriesSeqLock}), or by the appender's release of the sample count.
 */
final class SeriesAppender {
    /** {@link #chunkStep}'s step for a run's first sub-run: wrap the appender to the open block (above the appender's stops). */
    private static final int STEP_WRAP = XorAppender.RUN_FULL + 1;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final VarHandle MAX_TIME = LONG.varHandle();
    private static final VarHandle MIN_TIME = LONG.varHandle();

    private final ChunkMemory chunks;
    private final ClosedChunkLists closed;
    private final long chunkRangeMs;
    private final XorAppender appender = new XorAppender();
    private SeriesStore.ChunkSink chunkSink = SeriesStore.ChunkSink.NONE;
    private long newestTimestampMs = Long.MIN_VALUE; // the newest sample of any series (idle eviction's clock)
    private long stepOpen = ChunkHandle.NONE; // the open block chunkStep left (its second result)
    private final LateSink late;

    /** Where a sample older than its series' newest goes (the out-of-order rules, {@link SeriesStore}). */
    interface LateSink {
        /** Returns an {@link SeriesStore#append} result for sample (t, v) of series {@code id}, older than its newest. */
        int late(int id, long timestampMs, long valueBits);
    }

    SeriesAppender(ChunkMemory chunks, ClosedChunkLists closed, long chunkRangeMs, LateSink late) {
        this.late = late;
        this.chunks = chunks;
        this.closed = closed;
        this.chunkRangeMs = chunkRangeMs;
    }

    SeriesStore.ChunkSink chunkSink() {
        return chunkSink;
    }

    void chunkSink(SeriesStore.ChunkSink sink) {
        this.chunkSink = sink;
    }

    /** The newest sample timestamp appended to any series (restored ones included); Long.MIN_VALUE if none. */
    long newestTimestampMs() {
        return newestTimestampMs;
    }

    void noteNewest(long timestampMs) {
        newestTimestampMs = Math.max(newestTimestampMs, timestampMs);
    }

    private static long lastValueBits(MemorySegment s, long b) {
        return s.get(LONG, b + XOR_STATE_OFFSET + XorStateDescriptor.LAST_VALUE_BITS_OFFSET);
    }

    /**
     * Appends a sample: older than the last → the out-of-order rules ({@link LateSink}); same
     * timestamp and bits → {@link SeriesStore#DUPLICATE} (ignored); same timestamp, other bits →
     * {@link SeriesStore#DUPLICATE_TIMESTAMP}; else {@link SeriesStore#APPENDED}.
     */
    int append(MemorySegment s, long b, int id, long timestampMs, long valueBits) {
        long maxTime = s.get(LONG, b + MAX_TIME_OFFSET);
        if (maxTime != NO_SAMPLES) {
            if (timestampMs < maxTime) {
                return late.late(id, timestampMs, valueBits);
            }
            if (timestampMs == maxTime) {
                return lastValueBits(s, b) == valueBits ? DUPLICATE : DUPLICATE_TIMESTAMP;
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
        MAX_TIME.setRelease(s, b + MAX_TIME_OFFSET, timestampMs); // after the cursor: see SeriesStore.copyChunks
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
     * last (a later one stored out of order is counted into {@code counts} and not in the returned
     * number), cuts, or grows the block. A block for a run is sized from what is left of the run and the
     * bytes per sample so far ({@link ChunkCutPolicy#grownRunCapacityBytes},
     * {@link ChunkCutPolicy#nextChunkCapacityBytes}), so a long run skips most of the
     * 64 -> 128 -> 256 -> 512 -> 1040 copies; the chunk bytes do not depend on the block size.
     *
     * <p>The JIT's view: this method is the per-sub-run loop only; what happens once per chunk or
     * once per run is in {@link #chunkStep}, which C2 does not inline (see there).
     *
     * <p>Readers see each sub-run's samples at once (one cursor publication), never a torn chunk. Shard thread.
     */
    int appendRun(MemorySegment s, long b, int id, long[] timestampsMs, long[] valueBits, int from, int to, AppendCounts counts) {
        long maxTime = s.get(LONG, b + MAX_TIME_OFFSET);
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        long chunkEnd = s.get(LONG, b + CHUNK_END_OFFSET);
        int appended = 0;
        int stop = STEP_WRAP; // the first sub-run wraps the appender (in chunkStep: once per run)
        int i = from;
        while (i < to) {
            long t = timestampsMs[i];
            if (maxTime != NO_SAMPLES && t <= maxTime) {
                counts.add(t < maxTime ? lateInRun(id, t, valueBits[i], maxTime) : lastValueBits(s, b) == valueBits[i] ? DUPLICATE : DUPLICATE_TIMESTAMP);
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
                MAX_TIME.setRelease(s, b + MAX_TIME_OFFSET, maxTime); // after the cursor: see SeriesStore.copyChunks
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
     * A late sample met inside a run: the shard's newest is brought up to the run's samples so far
     * (as {@link #append} keeps it per sample), then the out-of-order rules. Off the in-order path.
     */
    private int lateInRun(int id, long timestampMs, long valueBits, long maxTime) {
        if (maxTime > newestTimestampMs) {
            newestTimestampMs = maxTime;
        }
        return late.late(id, timestampMs, valueBits);
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
     * more bytecode than that limit (benchmarks/check.sh guards the speed it buys), so it is compiled on its
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
    long replaceOpenBlock(MemorySegment s, long b, long old, long replacement) {
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
    boolean cutIdle(MemorySegment s, long b, int id) {
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        if (open == ChunkHandle.NONE) {
            return false;
        }
        wrapOpen(s, b + XOR_STATE_OFFSET, open);
        if (appender.numSamples() == 0) {
            replaceOpenBlock(s, b, open, ChunkHandle.NONE);
            return false;
        }
        long lastValue = lastValueBits(s, b);
        closeOpen(id, s, b, open, ChunkHandle.NONE);
        // Duplicate detection compares the next sample with the last value: keep it (the appender
        // writes a chunk's first value whole and overwrites this).
        s.set(LONG, b + XOR_STATE_OFFSET + XorStateDescriptor.LAST_VALUE_BITS_OFFSET, lastValue);
        return true;
    }

    /** Bytes the open chunk at {@code s[b]} holds (0 if it has none). */
    int openByteLength(MemorySegment s, long b) {
        long open = s.get(LONG, b + OPEN_CHUNK_OFFSET);
        if (open == ChunkHandle.NONE) {
            return 0;
        }
        wrapOpen(s, b + XOR_STATE_OFFSET, open);
        return appender.byteLength();
    }
}
