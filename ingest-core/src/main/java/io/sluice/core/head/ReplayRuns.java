package io.sluice.core.head;

/**
 * Groups replayed samples into runs per series before they are appended, so each series' struct
 * and open chunk are pulled into the cache once per run instead of once per sample.
 *
 * <p>Why: a WAL holds samples in scrape order — one sample of every series, then the next round —
 * so appending them as read touches a different series (two struct lines and the tail of its open
 * chunk, scattered over the chunk pages) for every sample: a cache and TLB miss each time. Profiled
 * at 100 M samples / 10k series, that miss (in {@code XorAppender.load}) took 40% of replay CPU.
 * Appending the same samples series by series gives the same chunks: append rules and chunk cuts
 * depend only on the order of a series' own samples, which a run keeps. A run goes to the store in
 * one call ({@link SeriesStore#appendRun}), which keeps the series' state in locals for all of it.
 *
 * <p>Memory: at most {@code budgetBytes} of buffered samples (16 bytes each): runs of
 * {@code budgetBytes / (16 * series capacity)} samples per series, capped at {@value #MAX_RUN}; when
 * that falls to 1 (very many series) samples go straight through. Grows with the series count by
 * flushing everything and re-laying out (in the same arrays once the budget caps them). Shard thread only.
 */
final class ReplayRuns {
    static final int MAX_RUN = 128;
    private static final int SAMPLE_BYTES = 2 * Long.BYTES;

    /** Where a run goes ({@link SeriesStore#appendRun}). */
    @FunctionalInterface
    interface Sink {
        /** Appends {@code timestampsMs[from..to)} / {@code valueBits[from..to)} of one series in order; the arrays are reused after the call. */
        void appendRun(int seriesId, long[] timestampsMs, long[] valueBits, int from, int to);
    }

    /** Where a sample goes when nothing is buffered (run of 1: very many series). */
    @FunctionalInterface
    interface OneSink {
        void append(int seriesId, long timestampMs, long valueBits);
    }

    private final long budgetBytes;
    private final Sink sink;
    private final OneSink one;
    private int capacitySeries;
    private int run;                // samples per series buffered before a flush; 1 = no buffering
    private int[] counts = new int[0];
    private long[] timestamps = new long[0];
    private long[] values = new long[0];
    // A run of one sample when nothing is buffered.
    private final long[] oneTimestamp = new long[1];
    private final long[] oneValue = new long[1];

    ReplayRuns(long budgetBytes, Sink sink) {
        this(budgetBytes, sink, null);
    }

    /**
     * @param one where single samples go when nothing is buffered; null: to {@code sink} as runs of one.
     *            Why a second sink: the caller's run sink then needs no "run of one?" branch, which in
     *            buffered mode only flushes at odd moments take, long after it was compiled (a trap
     *            and a recompile of the append path inlined under it).
     */
    ReplayRuns(long budgetBytes, Sink sink, OneSink one) {
        this.budgetBytes = budgetBytes;
        this.sink = sink;
        this.one = one != null ? one : this::appendAsRun;
        this.run = 1;
    }

    private void appendAsRun(int id, long timestampMs, long valueBits) {
        oneTimestamp[0] = timestampMs;
        oneValue[0] = valueBits;
        sink.appendRun(id, oneTimestamp, oneValue, 0, 1);
    }

    /** Buffers one sample of series {@code id} (0 <= id), flushing that series' run when it is full. */
    void add(int id, long timestampMs, long valueBits) {
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
        if (++n == run) {
            flush(id, n);
            n = 0;
        }
        counts[id] = n;
    }

    /** Appends every buffered sample (end of replay, or before a re-layout). */
    void flushAll() {
        if (run == 1) {
            return; // nothing is buffered
        }
        for (int id = 0; id < capacitySeries; id++) {
            int n = counts[id];
            if (n > 0) {
                flush(id, n);
                counts[id] = 0;
            }
        }
    }

    private void flush(int id, int n) {
        int from = id * run;
        sink.appendRun(id, timestamps, values, from, from + n);
    }

    private void grow(int id) {
        flushAll();
        int capacity = Math.max(1024, Math.max(id + 1, capacitySeries * 2));
        long byBudget = budgetBytes / ((long) SAMPLE_BYTES * capacity);
        run = (int) Math.max(1, Math.min(MAX_RUN, byBudget));
        capacitySeries = capacity;
        if (run == 1) {
            counts = new int[0];
            timestamps = new long[0];
            values = new long[0];
            return;
        }
        counts = new int[capacity];
        int slots = capacity * run;
        if (timestamps.length < slots) {
            timestamps = new long[slots];
            values = new long[slots];
        } // else the budget capped the run: the same slots, re-laid out (flushAll emptied them), no garbage
    }
}
