package io.sluice.core.index;

import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;
import org.roaringbitmap.RoaringBitmap;

/**
 * The inverted index of one shard: for each (name id, value id) pair of its symbol table, a
 * RoaringBitmap of the ids of the series that carry that label; per name, the value ids in use;
 * the name ids in use; and all series.
 *
 * <p><b>Threads and locking.</b> The shard thread is the only writer ({@link #add}, {@link #remove}),
 * called on series creation and eviction, never per sample. Readers on query threads read through
 * the methods below, which copy what they return. RoaringBitmap is not thread-safe, so a
 * {@link StampedLock} guards everything here: the writer takes the write lock for one series' labels,
 * readers take the read lock and build their own bitmaps while holding it. Readers do only
 * bitmap work under the lock (no regex, no strings; {@link Selector} evaluates regexes outside it),
 * so a query holds the writer back for microseconds to a few milliseconds (a union over 10^5
 * values), not for the length of the query. The lock also publishes the series: a reader that sees
 * an id in a bitmap sees whatever the writer stored before {@link #add}.
 *
 * <p><b>Memory</b> (heap): a pair costs about 100 bytes of map slot and bitmap objects plus 2 bytes
 * per series in an array container (at most 8 KiB per 65,536-id chunk once dense). With pairs shared
 * by many series that is about 1 byte per label: 11.6 bytes per series measured for 10^6
 * node_exporter-like series of 10 labels. {@link #heapBytes()} estimates the total.
 */
public final class Postings {
    private final StampedLock lock = new StampedLock();

    // Guarded by lock; written by the shard thread only.
    private final PairPostingsMap pairs = new PairPostingsMap();
    private RoaringBitmap[] valuesByName = new RoaringBitmap[64]; // name id -> value ids with series
    private final RoaringBitmap names = new RoaringBitmap();
    private final RoaringBitmap all = new RoaringBitmap();

    /** Indexes series {@code seriesId} under its {@code n} labels. Shard thread only. */
    public void add(int seriesId, int[] nameIds, int[] valueIds, int n) {
        long stamp = lock.writeLock();
        try {
            for (int i = 0; i < n; i++) {
                long key = PairPostingsMap.key(nameIds[i], valueIds[i]);
                RoaringBitmap series = pairs.get(key);
                if (series == null) {
                    // A new pair: its value and name may be new too. An existing pair's are already there
                    // (remove drops them only with the pair), so most series skip two of the three bitmap adds
                    // per label: series creation, and above all a checkpoint load of 10^6 series, is cheaper.
                    series = pairs.getOrCreate(key);
                    valuesOf(nameIds[i]).add(valueIds[i]);
                    names.add(nameIds[i]);
                }
                series.add(seriesId);
            }
            all.add(seriesId);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Removes series {@code seriesId}, indexed under these labels, dropping pairs, values and
     * names left without series. Shard thread only. Removing labels the series was not indexed
     * under is a caller's bug and throws.
     */
    public void remove(int seriesId, int[] nameIds, int[] valueIds, int n) {
        long stamp = lock.writeLock();
        try {
            for (int i = 0; i < n; i++) {
                long key = PairPostingsMap.key(nameIds[i], valueIds[i]);
                RoaringBitmap series = pairs.get(key);
                if (series == null || !series.checkedRemove(seriesId)) {
                    throw new IllegalStateException("series " + seriesId + " is not indexed under label "
                            + nameIds[i] + "=" + valueIds[i]);
                }
                if (series.isEmpty()) {
                    pairs.remove(key);
                    dropValue(nameIds[i], valueIds[i]);
                }
            }
            all.remove(seriesId);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** A copy of the series with label {@code nameId=valueId} (empty if none). Any thread. */
    public RoaringBitmap postings(int nameId, int valueId) {
        long stamp = lock.readLock();
        try {
            RoaringBitmap series = pairLocked(nameId, valueId);
            return series == null ? new RoaringBitmap() : series.clone();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** A copy of the value ids in use for {@code nameId} (empty if none). Any thread. */
    public RoaringBitmap valueIds(int nameId) {
        long stamp = lock.readLock();
        try {
            RoaringBitmap values = valuesLocked(nameId);
            return values == null ? new RoaringBitmap() : values.clone();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** A copy of the name ids in use. Any thread. */
    public RoaringBitmap nameIds() {
        long stamp = lock.readLock();
        try {
            return names.clone();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** A copy of all indexed series ids. Any thread. */
    public RoaringBitmap allSeries() {
        long stamp = lock.readLock();
        try {
            return all.clone();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Indexed series. Any thread. */
    public int seriesCount() {
        long stamp = lock.readLock();
        try {
            return all.getCardinality();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Approximate heap bytes of the index. Any thread. */
    public long heapBytes() {
        long stamp = lock.readLock();
        try {
            long bytes = pairs.heapBytes() + names.getLongSizeInBytes() + all.getLongSizeInBytes()
                    + 8L * valuesByName.length;
            for (RoaringBitmap values : valuesByName) {
                bytes += values == null ? 0 : values.getLongSizeInBytes();
            }
            return bytes;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    // For Selector, which runs several reads under one read lock: callers hold the read lock and
    // must not let the returned bitmaps escape it or modify them.

    long readLock() {
        return lock.readLock();
    }

    void unlockRead(long stamp) {
        lock.unlockRead(stamp);
    }

    RoaringBitmap pairLocked(int nameId, int valueId) {
        return pairs.get(PairPostingsMap.key(nameId, valueId));
    }

    RoaringBitmap valuesLocked(int nameId) {
        return nameId < valuesByName.length ? valuesByName[nameId] : null;
    }

    RoaringBitmap allLocked() {
        return all;
    }

    private RoaringBitmap valuesOf(int nameId) {
        if (nameId >= valuesByName.length) {
            valuesByName = Arrays.copyOf(valuesByName, Math.max(valuesByName.length * 2, nameId + 1));
        }
        RoaringBitmap values = valuesByName[nameId];
        if (values == null) {
            values = new RoaringBitmap();
            valuesByName[nameId] = values;
        }
        return values;
    }

    private void dropValue(int nameId, int valueId) {
        RoaringBitmap values = valuesByName[nameId];
        values.remove(valueId);
        if (values.isEmpty()) {
            valuesByName[nameId] = null;
            names.remove(nameId);
        }
    }
}
