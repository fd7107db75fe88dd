package io.sluice.server.query;

import io.sluice.server.config.QueryOptions;

/**
 * Counts what one query returns against {@link QueryOptions}' limits; the first series or sample
 * over a limit throws a 422 ({@link ApiError#execution}) and counts the rejection. One per query,
 * on the query's thread.
 */
final class QueryBudget {
    private final QueryOptions options;
    private final QueryMetrics metrics;
    private long series;
    private long samples;

    QueryBudget(QueryOptions options, QueryMetrics metrics) {
        this.options = options;
        this.metrics = metrics;
    }

    /** Counts one more series of the answer. */
    void addSeries() throws ApiError {
        if (++series > options.maxSeries()) {
            metrics.rejected(QueryMetrics.REASON_MAX_SERIES);
            throw ApiError.execution("query returns more than " + options.maxSeries() + " series (query.max-series); "
                    + "select fewer series with more label matchers or a shorter time range");
        }
    }

    /** Counts {@code n} more samples (points) of the answer. */
    void addSamples(long n) throws ApiError {
        samples += n;
        if (samples > options.maxSamples()) {
            metrics.rejected(QueryMetrics.REASON_MAX_SAMPLES);
            throw ApiError.execution("query returns more than " + options.maxSamples() + " samples (query.max-samples); "
                    + "select a shorter time range, a larger step or fewer series");
        }
    }

    long series() {
        return series;
    }

    long samples() {
        return samples;
    }
}
