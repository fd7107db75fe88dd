package io.sluice.core.head.series;

/**
 * What {@link SeriesStore#appendRun} did with a run's samples, by the outcomes of
 * {@link SeriesStore#append}: added to on every call, cleared by the caller. Reused, so counting
 * allocates nothing. Thread: the shard thread that appends.
 */
public final class AppendCounts {
    long appended;
    long outOfOrder;
    long duplicate;
    long duplicateTimestamp;

    /** Counts one sample with an {@link SeriesStore#append} result. */
    public void add(int result) {
        switch (result) {
            case SeriesStore.APPENDED -> appended++;
            case SeriesStore.OUT_OF_ORDER -> outOfOrder++;
            case SeriesStore.DUPLICATE -> duplicate++;
            default -> duplicateTimestamp++;
        }
    }

    long total() {
        return appended + outOfOrder + duplicate + duplicateTimestamp;
    }

    void clear() {
        appended = 0;
        outOfOrder = 0;
        duplicate = 0;
        duplicateTimestamp = 0;
    }
}
