package io.sluice.core.head.records;

import java.util.Arrays;

/**
 * What a SAMPLES record is encoded against, per series: the series' previous value and the
 * series id that followed it last time (the prediction for the next id). The encoder (a shard)
 * and a decoder (replay) each keep one, and they evolve identically because both see the same
 * records in the same order.
 *
 * <p>The state is scoped to one WAL segment: an entry last touched in another segment reads as
 * reset (previous value 0, no prediction). So every segment decodes from its own first record,
 * whatever came before it — replay may start at any segment (after a checkpoint, after repair).
 * Entering another segment ({@link #enterSegment}) zeroes the arrays: once per 128 MiB segment,
 * ~12 bytes per series id (1 M series: ~1 ms).
 *
 * <p>Layout: two arrays indexed by series id {@code s}: {@code nextOffsets[s]} = (the id that followed
 * {@code s} last) − ({@code s} + 1), and {@code values[s]}, the previous value's bits. Why offsets: "no
 * prediction" means "predict {@code s + 1}" in the format, which is what offset 0 predicts, so a
 * zeroed array is the reset state and the prediction is {@code s + 1 + nextOffsets[s]} with no test
 * at all. That matters to the decoder: the next entry's id depends on this load, entry after entry
 * (the chain that bounds its speed), and the former layout (a segment epoch and the id in one
 * {@code long}) put a masking of the epoch on that chain. The last slot of {@code nextOffsets} is
 * scratch: where the decoder's loop writes "what followed the series before the first" (nothing),
 * so it needs no branch for a record's first entry.
 *
 * <p>Single-threaded: owned by one shard worker or one replay reader (in turn: replay, then the
 * shard's encoder continues from the same state). Grows by doubling; 12 bytes per series id.
 */
public final class SeriesCodecState {
    private int[] nextOffsets;
    private long[] values;
    private int segmentIndex = Integer.MIN_VALUE; // none yet (the arrays are zero: the reset state)

    public SeriesCodecState(int initialSeries) {
        int capacity = Math.max(16, initialSeries);
        nextOffsets = new int[capacity + 1];
        values = new long[capacity];
    }

    /** Scopes subsequent calls to WAL segment {@code segmentIndex}; another segment than before resets every series. */
    public void enterSegment(int segmentIndex) {
        if (segmentIndex != this.segmentIndex) {
            Arrays.fill(nextOffsets, 0);
            Arrays.fill(values, 0L);
            this.segmentIndex = segmentIndex;
        }
    }

    long lastValue(int seriesId) {
        return seriesId < values.length ? values[seriesId] : 0L;
    }

    /** The id predicted after {@code previousId} (-1: the record's first entry, predicted 0). */
    int predictNext(int previousId) {
        if (previousId < 0 || previousId >= values.length) {
            return previousId + 1;
        }
        return previousId + 1 + nextOffsets[previousId];
    }

    /** Records that {@code seriesId} got {@code valueBits}, and that it followed {@code previousId} (or -1). */
    void update(int previousId, int seriesId, long valueBits) {
        ensureCapacity(seriesId);
        values[seriesId] = valueBits;
        if (previousId >= 0) {
            nextOffsets[previousId] = seriesId - (previousId + 1);
        }
    }

    // ---- for SamplesRecord.Decoder's loop, which works on the arrays directly ----

    /** The predictions (see the class comment; one scratch slot at the end); valid until the next growth. */
    int[] nextOffsets() {
        return nextOffsets;
    }

    /** The previous values' bits per series id; valid until the next growth ({@link #ensureCapacity}). */
    long[] values() {
        return values;
    }

    /** Ids below this have a slot ({@link #values()}'s length; {@link #nextOffsets()} has one more, the scratch slot). */
    int capacity() {
        return values.length;
    }

    /** Grows the arrays to hold {@code seriesId} (0 or more). */
    void ensureCapacity(int seriesId) {
        if (seriesId >= values.length) {
            int old = values.length;
            int n = (int) Math.min(Math.max(seriesId + 1L, 2L * old), Integer.MAX_VALUE - 9);
            values = Arrays.copyOf(values, n);
            nextOffsets = Arrays.copyOf(nextOffsets, n + 1);
            nextOffsets[old] = 0; // the old scratch slot is series `old` now, never touched: reset
        }
    }
}
