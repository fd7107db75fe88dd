package io.sluice.core.head.series;

/**
 * What {@link SeriesStore#appendRun} did with a run's samples, by the outcomes of
 * {@link SeriesStore#append}: added to on every call, cleared by the caller. Reused, so counting
 * allocates nothing. Thread: the shard thread that appends.
 */
public final class AppendCounts {
    long appended;
    /** Of {@link #appended}: samples older than their series' newest, stored out of order. */
    long outOfOrder;
    long tooOld;
    long duplicate;
    long duplicateTimestamp;

    /** Counts one sample with an {@link SeriesStore#append} result. */
    public void add(int result) {
        switch (result) {
            case SeriesStore.APPENDED -> appended++;
            case SeriesStore.APPENDED_OUT_OF_ORDER -> {
                appended++;
                outOfOrder++;
            }
            case SeriesStore.TOO_OLD -> tooOld++;
            case SeriesStore.DUPLICATE -> duplicate++;
            default -> duplicateTimestamp++;
        }
    }

    long total() {
        return appended + tooOld + duplicate + duplicateTimestamp;
    }

    /** Samples stored out of order (included in the appended ones). */
    public long outOfOrder() {
        return outOfOrder;
    }

    public long appended() {
        return appended;
    }

    public long tooOld() {
        return tooOld;
    }

    public long duplicate() {
        return duplicate;
    }

    public long duplicateTimestamp() {
        return duplicateTimestamp;
    }

    void clear() {
        appended = 0;
        outOfOrder = 0;
        tooOld = 0;
        duplicate = 0;
        duplicateTimestamp = 0;
    }
}
