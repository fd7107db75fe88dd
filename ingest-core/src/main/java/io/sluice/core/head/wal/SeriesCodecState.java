package io.sluice.core.head.wal;

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
 *
 * <p>Layout: two arrays indexed by series id {@code s}: {@code tags[s] = (epoch << 32) | (next id & 0xFFFFFFFF)}
 * and {@code values[s]}, the previous value's bits. Why: the segment check and the prediction of a
 * series are one load of one word (three parallel arrays cost two lines and two bounds checks for
 * them, 2.5 % of a replay's CPU), and the prediction chain a decoder follows from entry to entry
 * (the next id depends on the previous series' tag) walks an array of 8-byte words, 8 series per
 * cache line, with the values out of its way (one interleaved {@code long[]} of value and tag, half as
 * many series per line on that chain, measured no faster). The epoch is the WAL segment index + 1,
 * so a segment change (every 128 MiB) resets every series at once without touching the arrays;
 * epoch 0 (a zeroed tag) means never touched.
 *
 * <p>Single-threaded: owned by one shard worker or one replay reader (in turn: replay, then the
 * shard's encoder continues from the same state). Grows by doubling; 16 bytes per series id.
 */
public final class SeriesCodecState {
    static final int NO_PREDICTION = -1;
    private static final long ID_MASK = 0xFFFF_FFFFL;
    private static final long EPOCH_MASK = ~ID_MASK;

    private long[] tags;
    private long[] values;
    private long epochTag;            // (current segment index + 1) << 32

    public SeriesCodecState(int initialSeries) {
        tags = new long[Math.max(16, initialSeries)];
        values = new long[tags.length];
    }

    /** Scopes subsequent calls to WAL segment {@code segmentIndex}. */
    public void enterSegment(int segmentIndex) {
        this.epochTag = (long) (segmentIndex + 1) << 32;
    }

    long lastValue(int seriesId) {
        return seriesId < tags.length && isCurrent(tags[seriesId], epochTag) ? values[seriesId] : 0L;
    }

    int predictedNext(int seriesId) {
        if (seriesId < 0 || seriesId >= tags.length) {
            return NO_PREDICTION;
        }
        long tag = tags[seriesId];
        return isCurrent(tag, epochTag) ? (int) tag : NO_PREDICTION;
    }

    /** Records that {@code seriesId} got {@code valueBits}, and that it followed {@code previousId} (or -1). */
    void update(int previousId, int seriesId, long valueBits) {
        ensureCapacity(seriesId);
        if (!isCurrent(tags[seriesId], epochTag)) {
            tags[seriesId] = resetTag(epochTag);
        }
        values[seriesId] = valueBits;
        if (previousId >= 0) {
            tags[previousId] = followedTag(epochTag, seriesId); // previousId is current: it was updated just before
        }
    }

    // ---- for SamplesRecord.Decoder's loop, which works on the array directly ----

    /** The tags (epoch and prediction per series id); valid until the next growth ({@link #ensureCapacity}). */
    long[] tags() {
        return tags;
    }

    /** The previous values' bits per series id; valid until the next growth ({@link #ensureCapacity}). */
    long[] values() {
        return values;
    }

    /** Grows the arrays to hold {@code seriesId} (0 or more). */
    void ensureCapacity(int seriesId) {
        if (seriesId >= tags.length) {
            int n = (int) Math.min(Math.max(seriesId + 1L, 2L * tags.length), Integer.MAX_VALUE - 8);
            tags = Arrays.copyOf(tags, n);
            values = Arrays.copyOf(values, n);
        }
    }

    /** The current epoch in the high half of a tag. */
    long epochTag() {
        return epochTag;
    }

    /** True if a series' tag says it was touched in the segment of {@code epochTag}. */
    static boolean isCurrent(long tag, long epochTag) {
        return (tag & EPOCH_MASK) == epochTag;
    }

    /**
     * -1 (all ones) if {@code tag} is current in the segment of {@code epochTag}, else 0: the same
     * test as {@link #isCurrent} without a branch, for a decoder loop in which "not current" happens
     * in bursts (the first records of each WAL segment) that a compiled branch would trap on.
     */
    static long currentMask(long tag, long epochTag) {
        long differs = (tag ^ epochTag) & EPOCH_MASK;      // 0 iff current
        return ~((differs | -differs) >> 63);              // sign of (x | -x) is set iff x != 0
    }

    /** The tag of a series first touched in this segment: current, no prediction. */
    static long resetTag(long epochTag) {
        return epochTag | ID_MASK; // low half -1 = NO_PREDICTION
    }

    /** The tag of a current series that was followed by {@code nextId}. */
    static long followedTag(long epochTag, int nextId) {
        return epochTag | (nextId & ID_MASK);
    }
}
