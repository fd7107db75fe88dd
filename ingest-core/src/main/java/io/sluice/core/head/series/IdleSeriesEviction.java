package io.sluice.core.head.series;

import io.sluice.core.head.stats.ShardStats;

/**
 * A shard's retention and idle-series work at a checkpoint, measured in sample time against the
 * shard's newest sample, capped by the wall clock (so one sample from the far future cannot make
 * everything else look old; replays and backfills of old data keep their data):
 *
 * <ul>
 *   <li><b>Retention</b>: a series whose newest sample is older than the retention is removed
 *       entirely (its chunks freed, it leaves the registry and the postings, its id stays taken:
 *       dense ids, see docs/format/checkpoint.md). Of the others, closed chunks whose last sample
 *       is older are dropped from their lists; the chunk files nothing references any more are
 *       deleted by the checkpoint.</li>
 *   <li><b>Idle series</b>: one whose newest sample is older than the idle timeout has its open
 *       chunk cut to the chunk files and its open block freed. No sample inside the retention is
 *       lost: it stays queryable and costs its struct, labels and chunk list.</li>
 * </ul>
 *
 * <p>Shard thread only.
 */
public final class IdleSeriesEviction {
    private final SeriesStore store;
    private final SeriesRegistry registry;
    private final ShardIndex index;
    private final ShardStats stats;
    private byte[] labels = new byte[1024];

    public IdleSeriesEviction(SeriesStore store, SeriesRegistry registry, ShardIndex index, ShardStats stats) {
        this.store = store;
        this.registry = registry;
        this.index = index;
        this.stats = stats;
    }

    /**
     * Applies the retention (0: keep forever) and cuts idle series (timeout 0: never); returns how
     * many series were removed.
     */
    public int run(long idleTimeoutMs, long retentionMs, long wallClockMs) {
        long newest = Math.min(store.newestTimestampMs(), wallClockMs);
        if (newest == Long.MIN_VALUE) {
            return 0;
        }
        long retentionCutoff = retentionMs == 0 ? Long.MIN_VALUE : newest - retentionMs;
        long idleCutoff = idleTimeoutMs == 0 ? Long.MIN_VALUE : newest - idleTimeoutMs;
        int removed = 0;
        long expired = 0;
        for (int id = 0; id < store.count(); id++) {
            long maxTime = store.maxTime(id);
            if (maxTime == SeriesDescriptor.NO_SAMPLES || store.isEvicted(id)) {
                continue;
            }
            if (maxTime < retentionCutoff) {
                remove(id);
                removed++;
                continue;
            }
            if (retentionCutoff != Long.MIN_VALUE) {
                expired += store.dropExpired(id, retentionCutoff);
            }
            if (maxTime < idleCutoff && store.cutIdle(id)) {
                stats.increment(ShardStats.Counter.SERIES_IDLE_CUT);
            }
        }
        stats.add(ShardStats.Counter.CHUNKS_EXPIRED, expired);
        return removed;
    }

    private void remove(int id) {
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
