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
 * <p>Single-threaded: owned by one shard worker or one replay reader. Arrays grow by doubling;
 * 16 bytes per series id.
 */
public final class SeriesCodecState {
    static final int NO_PREDICTION = -1;

    private int[] epochBySeries;      // WAL segment index + 1 of the last touch; 0 = never
    private long[] lastValueBySeries;
    private int[] nextBySeries;
    private int epoch;                // current segment index + 1

    public SeriesCodecState(int initialSeries) {
        int n = Math.max(16, initialSeries);
        epochBySeries = new int[n];
        lastValueBySeries = new long[n];
        nextBySeries = new int[n];
    }

    /** Scopes subsequent calls to WAL segment {@code segmentIndex}. */
    public void enterSegment(int segmentIndex) {
        this.epoch = segmentIndex + 1;
    }

    long lastValue(int seriesId) {
        return isCurrent(seriesId) ? lastValueBySeries[seriesId] : 0L;
    }

    int predictedNext(int seriesId) {
        return seriesId >= 0 && isCurrent(seriesId) ? nextBySeries[seriesId] : NO_PREDICTION;
    }

    /** Records that {@code seriesId} got {@code valueBits}, and that it followed {@code previousId} (or -1). */
    void update(int previousId, int seriesId, long valueBits) {
        ensureCapacity(seriesId);
        if (!isCurrent(seriesId)) {
            epochBySeries[seriesId] = epoch;
            nextBySeries[seriesId] = NO_PREDICTION;
        }
        lastValueBySeries[seriesId] = valueBits;
        if (previousId >= 0) {
            nextBySeries[previousId] = seriesId; // previousId is current: it was updated just before
        }
    }

    private boolean isCurrent(int seriesId) {
        return seriesId < epochBySeries.length && epochBySeries[seriesId] == epoch;
    }

    private void ensureCapacity(int seriesId) {
        if (seriesId >= epochBySeries.length) {
            int n = Math.max(seriesId + 1, epochBySeries.length * 2);
            epochBySeries = Arrays.copyOf(epochBySeries, n);
            lastValueBySeries = Arrays.copyOf(lastValueBySeries, n);
            nextBySeries = Arrays.copyOf(nextBySeries, n);
        }
    }
}
