package io.sluice.tools.bench;

/**
 * Series and samples a {@link ReplayBenchWriter} writes round by round: every series gets one sample per
 * scrape round, at {@link #scrapeTimeMs}. Implementations may keep per-series state, so
 * {@link #value} is called for rounds 0, 1, 2, ... of each series in order.
 */
public interface RoundWorkload {
    int seriesCount();

    /** Canonical label bytes of series {@code i} (shared, do not modify). */
    byte[] labels(int i);

    /** The label hash of series {@code i}. */
    long hash(int i);

    /** The longest canonical label encoding of any series. */
    int maxLabelsLength();

    /** The sample time of scrape round {@code round}. */
    long scrapeTimeMs(long round);

    /** The value of series {@code i} at round {@code round}; called in round order per series. */
    double value(int i, long round);
}
