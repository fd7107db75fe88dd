package io.sluice.server.config;

/**
 * Limits and defaults of the query API ({@code query.*} keys).
 *
 * @param maxSeries       series one query may return (or stream); more answer 422
 * @param maxSamples      samples (points) one query may return (or stream); more answer 422
 * @param lookbackDeltaMs how far back an instant selection looks for a series' latest sample
 * @param timeoutMs       the longest a PromQL query may evaluate ({@code query.timeout}); a request's
 *                        {@code timeout} parameter can only shorten it
 * @param delayedNameRemoval PromQL drops the metric name at the end of a query rather than where a
 *                        function or operator drops it ({@code query.delayed-name-removal}; Prometheus'
 *                        {@code promql-delayed-name-removal} feature, off by default there and here)
 */
public record QueryOptions(int maxSeries, long maxSamples, long lookbackDeltaMs, long timeoutMs, boolean delayedNameRemoval) {
    /** Prometheus' default {@code --query.timeout}. */
    public static final long DEFAULT_TIMEOUT_MS = 2 * 60_000;
    public static final QueryOptions DEFAULTS = new QueryOptions(100_000, 50_000_000, 5 * 60_000, DEFAULT_TIMEOUT_MS, false);

    public QueryOptions {
        if (maxSeries < 1 || maxSamples < 1 || lookbackDeltaMs < 1 || timeoutMs < 1) {
            throw new IllegalArgumentException("query limits must be positive: " + maxSeries + ", " + maxSamples
                    + ", " + lookbackDeltaMs + ", " + timeoutMs);
        }
    }

    /** Without delayed name removal. */
    public QueryOptions(int maxSeries, long maxSamples, long lookbackDeltaMs, long timeoutMs) {
        this(maxSeries, maxSamples, lookbackDeltaMs, timeoutMs, false);
    }

    /** With the default timeout. */
    public QueryOptions(int maxSeries, long maxSamples, long lookbackDeltaMs) {
        this(maxSeries, maxSamples, lookbackDeltaMs, DEFAULT_TIMEOUT_MS);
    }
}
