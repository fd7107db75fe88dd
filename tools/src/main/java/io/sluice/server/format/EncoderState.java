package io.sluice.server.format;

/**
 * The call order every {@link RecordEncoder} enforces: {@code beginSeries, (label | sample)*, endSeries}
 * with at least one sample a series, and no {@code finishValues} inside a series. A misuse throws
 * {@link IllegalStateException}. Owned by one encoder (not thread-safe).
 */
public final class EncoderState {
    private boolean inSeries;
    private int seriesSamples;

    /** Forgets any open series (the encoder starts new values). */
    public void reset() {
        inSeries = false;
    }

    public void beginSeries() {
        if (inSeries) {
            throw new IllegalStateException("beginSeries() before endSeries() of the previous series");
        }
        inSeries = true;
        seriesSamples = 0;
    }

    /** Checks that a series is open (for {@code label}). */
    public void requireSeries() {
        if (!inSeries) {
            throw new IllegalStateException("call beginSeries() first");
        }
    }

    /** Checks that a series is open and counts a sample of it. */
    public void sample() {
        requireSeries();
        seriesSamples++;
    }

    /** Samples of the open series so far. */
    public int seriesSamples() {
        return seriesSamples;
    }

    public void endSeries() {
        requireSeries();
        if (seriesSamples == 0) {
            throw new IllegalStateException("a series needs at least one sample");
        }
        inSeries = false;
    }

    /** Checks that no series is open before the values are completed. */
    public void finish() {
        if (inSeries) {
            throw new IllegalStateException("finishing inside a series: call endSeries() first");
        }
    }
}
