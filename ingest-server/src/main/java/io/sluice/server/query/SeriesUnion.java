package io.sluice.server.query;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.labels.LabelsView;

/**
 * The union of several head queries (one per {@code match[]}), in label order and without
 * duplicates: a k-way merge over their cursors, each already sorted by labels. Holds one series
 * snapshot per query at a time, never the whole result. Not thread-safe.
 */
final class SeriesUnion {
    private final HeadQuery[] queries;
    private final boolean[] hasCurrent;
    private final boolean[] consumed;
    private int current = -1;

    SeriesUnion(HeadQuery... queries) {
        this.queries = queries;
        this.hasCurrent = new boolean[queries.length];
        this.consumed = new boolean[queries.length];
        java.util.Arrays.fill(consumed, true);
    }

    /** Upper bound of the series the union yields (series with chunks overlapping the range, duplicates counted). */
    long sizeUpperBound() {
        long n = 0;
        for (HeadQuery q : queries) {
            n += q.size();
        }
        return n;
    }

    /** Moves to the next series (the smallest labels among the cursors; equal ones are skipped together). */
    boolean next() {
        for (int i = 0; i < queries.length; i++) {
            if (consumed[i]) {
                hasCurrent[i] = queries[i].next();
                consumed[i] = false;
            }
        }
        current = -1;
        for (int i = 0; i < queries.length; i++) {
            if (hasCurrent[i] && (current < 0 || queries[i].labels().compareTo(queries[current].labels()) < 0)) {
                current = i;
            }
        }
        if (current < 0) {
            return false;
        }
        for (int i = 0; i < queries.length; i++) {
            consumed[i] = hasCurrent[i] && (i == current || queries[i].labels().bytesEqual(queries[current].labels()));
        }
        return true;
    }

    LabelsView labels() {
        return queries[current].labels();
    }

    /** The current series' snapshot (labels array, samples, chunks). */
    SeriesSnapshot snapshot() {
        return queries[current].snapshot();
    }
}
