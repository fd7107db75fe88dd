package io.sluice.promql;

import java.util.function.BooleanSupplier;

/**
 * Per-query bounds the evaluator enforces while it runs: the deadline ({@code query.timeout}), the
 * most samples held in memory at once ({@code query.max-samples}, Prometheus' "query processing would
 * load too many samples into memory in query execution" → 422), and a cancellation check (the client went
 * away → {@link PromQLException.ErrorType#CANCELED}). {@code deadlineNanos} is on {@link System#nanoTime()}'s
 * clock; {@code Long.MAX_VALUE} for none.
 */
public record QueryLimits(long deadlineNanos, long maxSamples, BooleanSupplier canceled) {
    public static final QueryLimits NONE = new QueryLimits(Long.MAX_VALUE, Long.MAX_VALUE, () -> false);
}
