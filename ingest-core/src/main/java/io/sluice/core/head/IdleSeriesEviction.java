package io.sluice.core.head;

/**
 * Drops a shard's idle series at a checkpoint: those whose last sample is more than the idle
 * timeout older than the shard's newest sample. Their chunks are freed and they leave the registry
 * and the postings; their ids stay taken (dense ids; see docs/format/checkpoint.md). The clock is
 * sample time, so replays and backfills do not drop everything, capped by the wall clock, so one
 * sample from the far future cannot make every other series look idle.
 *
 * <p>Shard thread only.
 */
final class IdleSeriesEviction {
    private final SeriesStore store;
    private final SeriesRegistry registry;
    private final ShardIndex index;
    private final ShardStats stats;
    private byte[] labels = new byte[1024];

    IdleSeriesEviction(SeriesStore store, SeriesRegistry registry, ShardIndex index, ShardStats stats) {
        this.store = store;
        this.registry = registry;
        this.index = index;
        this.stats = stats;
    }

    /** Drops the series idle for longer than {@code timeoutMs} (0: none); returns how many. */
    int run(long timeoutMs, long wallClockMs) {
        long newest = Math.min(store.newestTimestampMs(), wallClockMs);
        if (timeoutMs == 0 || newest == Long.MIN_VALUE) {
            return 0;
        }
        long cutoff = newest - timeoutMs;
        int dropped = 0;
        for (int id = 0; id < store.count(); id++) {
            long maxTime = store.maxTime(id);
            if (maxTime != SeriesDescriptor.NO_SAMPLES && maxTime < cutoff && !store.isEvicted(id)) {
                drop(id);
                dropped++;
            }
        }
        return dropped;
    }

    private void drop(int id) {
        int length = store.labelsLength(id);
        if (length > labels.length) {
            labels = new byte[Math.max(length, labels.length * 2)];
        }
        store.copyLabels(id, labels);
        registry.remove(store.hash(id), id);
        index.remove(id, labels, 0, length);
        store.evict(id);
        stats.increment(ShardStats.Counter.SERIES_EVICTED);
    }
}
