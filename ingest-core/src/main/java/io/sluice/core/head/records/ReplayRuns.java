package io.sluice.core.head.records;

import java.util.Arrays;

/**
 * Groups replayed samples into runs per series before they are appended, so each series' struct
 * and open chunk are pulled into the cache once per run instead of once per sample.
 *
 * <p>Why: a WAL holds samples in scrape order — one sample of every series, then the next round —
 * so appending them as read touches a different series (two struct lines and the tail of its open
 * chunk, scattered over the chunk pages) for every sample: a cache and TLB miss each time. Profiled
 * at 100 M samples / 10k series, that miss (in {@code XorAppender.load}) took 40% of replay CPU.
 * Appending the same samples series by series gives the same chunks: append rules and chunk cuts
 * depend only on the order of a series' own samples, which a run keeps. A full run goes to the
 * {@link RunSink} in one call ({@code SeriesStore.appendRun}).
 *
 * <p>Two ways in, same result: {@link #add} (one sample; what tests and the reference decoder use),
 * and {@link SamplesRecord.Decoder#decodeAll}, which writes the samples of a record straight into
 * this buffer's arrays (no call per sample) and stops after any entry that fills a run so
 * {@link #flushIfFull} can hand it on. Layout: series {@code id}'s run is {@code [id * run, id * run +
 * counts[id])} of {@link #timestampsMs()} and {@link #valueBits()}.
 *
 * <p>Memory: at most {@code budgetBytes} of buffered samples (16 bytes each): runs of
 * {@code budgetBytes / (16 * series capacity)} samples per series, capped at {@value #MAX_RUN}; when
 * that falls to 1 (very many series) nothing is buffered and samples go to the {@link OneSink}. The
 * series capacity doubles as ids appear. While the run length stays the same, growing keeps the
 * buffered samples where they are (the layout of the ids already seen does not change), and the
 * arrays, once past their first size, are allocated at the whole budget at once: fresh heap arrays
 * cost a kernel page fault and zeroing per page, and the doubling sizes summed to twice the budget.
 * Only when the run length must shrink is everything flushed and re-laid out in the same arrays.
 *
 * <p>Single-threaded: owned by the replaying shard thread; dropped after replay.
 */
public final class ReplayRuns {
    static final int MAX_RUN = 128;
    private static final int SAMPLE_BYTES = 2 * Long.BYTES;
    /** Series capacity of the first layout; the arrays start at this times {@value #MAX_RUN} samples. */
    private static final int FIRST_CAPACITY = 1024;

    /** Where a run goes ({@code SeriesStore.appendRun}). */
    @FunctionalInterface
    public interface RunSink {
        /** Appends {@code timestampsMs[from..to)} / {@code valueBits[from..to)} of one series in order; the arrays are reused after the call. */
        void appendRun(int seriesId, long[] timestampsMs, long[] valueBits, int from, int to);
    }

    /** Where a sample goes when nothing is buffered (run of 1: very many series). */
    @FunctionalInterface
    public interface OneSink {
        void append(int seriesId, long timestampMs, long valueBits);
    }

    private final long budgetBytes;
    private final RunSink sink;
    private final OneSink one;
    // All owned by the replaying thread.
    private int capacitySeries;
    private int run;                // samples per series buffered before a flush; 1 = no buffering
    private int[] counts = new int[0];
    private long[] timestamps = new long[0];
    private long[] values = new long[0];

    /**
     * @param one where single samples go when nothing is buffered. Why a second sink: the caller's
     *            run sink then needs no "run of one?" branch, which in buffered mode no flush takes
     *            (a late trap and a recompile of the append path inlined under it).
     */
    public ReplayRuns(long budgetBytes, RunSink sink, OneSink one) {
        this.budgetBytes = budgetBytes;
        this.sink = sink;
        this.one = one;
        this.run = 1;
    }

    /** Buffers one sample of series {@code id} (0 <= id), flushing that series' run when it is full. */
    public void add(int id, long timestampMs, long valueBits) {
        if (id >= capacitySeries) {
            grow(id);
        }
        if (run == 1) {
            one.append(id, timestampMs, valueBits);
            return;
        }
        int n = counts[id];
        int at = id * run + n;
        timestamps[at] = timestampMs;
        values[at] = valueBits;
        counts[id] = n + 1;
        flushIfFull(id);
    }

    /**
     * Hands series {@code id}'s run to the sink if it is full and empties it; returns whether it
     * did. {@code id} may be anything (-1, beyond the capacity, nothing buffered): then there is nothing to flush.
     */
    boolean flushIfFull(int id) {
        if (id < 0 || id >= counts.length || counts[id] != run) {
            return false;
        }
        int from = id * run;
        counts[id] = 0;
        sink.appendRun(id, timestamps, values, from, from + run);
        return true;
    }

    /** Appends every buffered sample (end of replay, or before a re-layout). */
    public void flushAll() {
        if (run == 1) {
            return; // nothing is buffered
        }
        for (int id = 0; id < capacitySeries; id++) {
            int n = counts[id];
            if (n > 0) {
                counts[id] = 0;
                int from = id * run;
                sink.appendRun(id, timestamps, values, from, from + n);
            }
        }
    }

    /** Makes room for series {@code id} (not below the capacity). */
    private void grow(int id) {
        int capacity = Math.max(FIRST_CAPACITY, Math.max(id + 1, capacitySeries * 2));
        int newRun = (int) Math.max(1, Math.min(MAX_RUN, budgetBytes / ((long) SAMPLE_BYTES * capacity)));
        boolean keep = newRun == run; // the same layout, only longer: buffered samples stay where they are
        if (!keep) {
            flushAll();
        }
        run = newRun;
        capacitySeries = capacity;
        if (newRun == 1) {
            counts = new int[0];
            timestamps = new long[0];
            values = new long[0];
            return;
        }
        counts = keep ? Arrays.copyOf(counts, capacity) : new int[capacity];
        long slots = (long) capacity * newRun;
        if (timestamps.length < slots) {
            // First size: what this capacity needs; after that the whole budget at once (class comment).
            int size = (int) (timestamps.length == 0 ? slots : Math.max(slots, budgetBytes / SAMPLE_BYTES));
            timestamps = keep ? Arrays.copyOf(timestamps, size) : new long[size];
            values = keep ? Arrays.copyOf(values, size) : new long[size];
        } // else the same slots suffice (also re-laid out after a flush): no garbage
    }

    // ---- for SamplesRecord.Decoder's loop, which writes into the arrays directly ----

    /** Samples per series before its run is full; 1: nothing is buffered (use {@link #add}). */
    int run() {
        return run;
    }

    /** Ids below this have a run; a larger one must go through {@link #add} (which grows). */
    int capacitySeries() {
        return capacitySeries;
    }

    /** Buffered samples per series id; valid until the next growth. */
    int[] counts() {
        return counts;
    }

    /** Buffered timestamps; valid until the next growth. */
    long[] timestampsMs() {
        return timestamps;
    }

    /** Buffered value bits, parallel to {@link #timestampsMs()}; valid until the next growth. */
    long[] valueBits() {
        return values;
    }
}
