package io.sluice.server.query;

/**
 * Limits and defaults of the query API ({@code query.*} keys).
 *
 * @param maxSeries       series one query may return (or stream); more answer 422
 * @param maxSamples      samples (points) one query may return (or stream); more answer 422
 * @param lookbackDeltaMs how far back an instant selection looks for a series' latest sample
 */
public record QueryOptions(int maxSeries, long maxSamples, long lookbackDeltaMs) {
    public static final QueryOptions DEFAULTS = new QueryOptions(100_000, 50_000_000, 5 * 60_000);

    public QueryOptions {
        if (maxSeries < 1 || maxSamples < 1 || lookbackDeltaMs < 1) {
            throw new IllegalArgumentException("query limits must be positive: " + maxSeries + ", " + maxSamples
                    + ", " + lookbackDeltaMs);
        }
    }
}
