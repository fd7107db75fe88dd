package io.sluice.promql.storage;

import io.sluice.promql.labels.LabelMatcher;
import java.util.List;

/**
 * What the engine reads: series selected by label matchers over a time range. The server adapts the
 * head's consistent snapshots to it; tests use {@link MemoryQueryable}. Implementations must be safe to
 * call from several query threads at once; each returned {@link SeriesSet} is used by one thread.
 */
public interface Queryable {
    /**
     * The series matching every matcher that may have samples in {@code [minTimeMs, maxTimeMs]} (both
     * inclusive), sorted by labels ({@link io.sluice.promql.labels.Labels#compareTo}). Samples outside the
     * range may be returned too; the engine filters by time.
     */
    SeriesSet select(long minTimeMs, long maxTimeMs, List<LabelMatcher> matchers);

    /**
     * {@link #select} for a reader that calls nothing but {@link SampleIterator#latest}{@code (from, maxTimeMs)}
     * on each series' iterator (an instant selection): a store that knows a series' newest sample may
     * copy nothing else of it. By default {@link #select}.
     */
    default SeriesSet selectLatest(long minTimeMs, long maxTimeMs, List<LabelMatcher> matchers) {
        return select(minTimeMs, maxTimeMs, matchers);
    }
}
