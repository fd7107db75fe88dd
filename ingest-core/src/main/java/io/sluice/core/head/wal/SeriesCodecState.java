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
 * <p>Layout: one interleaved {@code long[]}, two slots per series id {@code s}:
 * {@code slots[2s]} the previous value's bits, {@code slots[2s+1]} the tag
 * {@code (epoch << 32) | (next id & 0xFFFFFFFF)}. Why: the segment check, the previous value and
 * the prediction of one series are on one cache line and read with one array bounds check, where
 * three parallel arrays cost three lines and three checks per touch (2.5 % of a replay's CPU).
 * The epoch is the WAL segment index + 1, so a segment change (every 128 MiB) resets every series
 * at once without touching the array; epoch 0 (a zeroed slot) means never touched.
 *
 * <p>Single-threaded: owned by one shard worker or one replay reader (in turn: replay, then the
 * shard's encoder continues from the same state). Grows by doubling; 16 bytes per series id.
 */
public final class SeriesCodecState {
    static final int NO_PREDICTION = -1;
    private static final long ID_MASK = 0xFFFF_FFFFL;
    private static final long EPOCH_MASK = ~ID_MASK;

    private long[] slots;
    private long epochTag;            // (current segment index + 1) << 32

    public SeriesCodecState(int initialSeries) {
        slots = new long[2 * Math.max(16, initialSeries)];
    }

    /** Scopes subsequent calls to WAL segment {@code segmentIndex}. */
    public void enterSegment(int segmentIndex) {
        this.epochTag = (long) (segmentIndex + 1) << 32;
    }

    long lastValue(int seriesId) {
        if (seriesId >= slots.length >>> 1) {
            return 0L;
        }
        int at = seriesId << 1;
        return isCurrent(slots[at + 1], epochTag) ? slots[at] : 0L;
    }

    int predictedNext(int seriesId) {
        if (seriesId < 0 || seriesId >= slots.length >>> 1) {
            return NO_PREDICTION;
        }
        long tag = slots[(seriesId << 1) + 1];
        return isCurrent(tag, epochTag) ? (int) tag : NO_PREDICTION;
    }

    /** Records that {@code seriesId} got {@code valueBits}, and that it followed {@code previousId} (or -1). */
    void update(int previousId, int seriesId, long valueBits) {
        long[] s = slotsFor(seriesId);
        int at = seriesId << 1;
        if (!isCurrent(s[at + 1], epochTag)) {
            s[at + 1] = resetTag(epochTag);
        }
        s[at] = valueBits;
        if (previousId >= 0) {
            s[(previousId << 1) + 1] = followedTag(epochTag, seriesId); // previousId is current: it was updated just before
        }
    }

    // ---- for SamplesRecord.Decoder's loop, which works on the array directly ----

    /** The slots array; valid until the next growth ({@link #slotsFor}, {@link #update}). */
    long[] slots() {
        return slots;
    }

    /** The slots array, grown to hold {@code seriesId} (0 or more); valid until the next growth. */
    long[] slotsFor(int seriesId) {
        if (((long) seriesId << 1) + 1 >= slots.length) {
            long n = Math.max(((long) seriesId + 1) << 1, (long) slots.length << 1);
            slots = Arrays.copyOf(slots, (int) Math.min(n, Integer.MAX_VALUE - 8) & ~1);
        }
        return slots;
    }

    /** The current epoch in the high half of a tag. */
    long epochTag() {
        return epochTag;
    }

    /** True if a series' tag says it was touched in the segment of {@code epochTag}. */
    static boolean isCurrent(long tag, long epochTag) {
        return (tag & EPOCH_MASK) == epochTag;
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
