package io.sluice.promql.storage;

/**
 * Float samples of one series in strictly increasing time order, without an object per sample.
 * Values are raw: a staleness marker is the NaN with bits {@link #STALE_NAN_BITS} and is returned as
 * a sample (the engine interprets it). Not thread-safe.
 */
public interface SampleIterator {
    /** Prometheus' staleness marker: a NaN with this exact bit pattern. */
    long STALE_NAN_BITS = 0x7ff0000000000002L;

    /** Moves to the next sample; false at the end. */
    boolean next();

    /**
     * Moves to the first sample at or after {@code timeMs} (staying on the current one when it already
     * is); false when there is none. May be called before the first {@link #next()}.
     */
    boolean seek(long timeMs);

    /**
     * Moves to the latest sample in [fromMs, toMs], the one read of an instant selection; false when
     * there is none. Ends the iteration: {@link #next()} and {@link #seek} are false afterwards. A store
     * that knows a series' newest sample answers from it without reading the samples before.
     */
    boolean latest(long fromMs, long toMs);

    long timestamp();

    double value();

    static boolean isStaleMarker(double v) {
        return Double.doubleToRawLongBits(v) == STALE_NAN_BITS;
    }
}
