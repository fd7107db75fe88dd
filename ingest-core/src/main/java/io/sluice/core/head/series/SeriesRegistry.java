package io.sluice.core.head.series;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A shard's map from series hash to series id: open addressing with linear probing over two
 * primitive arrays (no object per series). A hash match is only a candidate: the caller's
 * {@link LabelsMatcher} compares the full canonical labels, so two label sets with the same
 * 64-bit hash stay two series.
 *
 * <p>Owned by the shard thread; readers (queries) never touch it. 12 bytes per slot, kept at most
 * half full: 24 bytes per series. Removal uses backward-shift deletion (no tombstones), so probe
 * lengths stay short however many series come and go.
 */
public final class SeriesRegistry {
    public static final int ABSENT = -1;
    private static final int EMPTY = -1;
    private static final long MURMUR_MIX = 0x9E3779B97F4A7C15L;

    /** Compares a stored series' labels with candidate labels. */
    public interface LabelsMatcher {
        boolean labelsEqual(int seriesId, MemorySegment labels, long offset, int length);
    }

    private long[] hashes;
    private int[] ids;
    private int mask;
    private int size;

    public SeriesRegistry(int expectedSeries) {
        int capacity = Integer.highestOneBit(Math.max(16, expectedSeries * 2 - 1)) << 1;
        allocate(capacity);
    }

    private void allocate(int capacity) {
        hashes = new long[capacity];
        ids = new int[capacity];
        Arrays.fill(ids, EMPTY);
        mask = capacity - 1;
    }

    int size() {
        return size;
    }

    public long footprintBytes() {
        return (long) hashes.length * (Long.BYTES + Integer.BYTES);
    }

    /** The id of the series with these labels and hash, or {@link #ABSENT}. */
    public int find(long hash, MemorySegment labels, long offset, int length, LabelsMatcher matcher) {
        for (int slot = slot(hash); ; slot = (slot + 1) & mask) {
            int id = ids[slot];
            if (id == EMPTY) {
                return ABSENT;
            }
            if (hashes[slot] == hash && matcher.labelsEqual(id, labels, offset, length)) {
                return id;
            }
        }
    }

    /**
     * Grows the table at once to hold {@code series} series (a checkpoint load knows its count), so the
     * load does not rehash everything at each doubling on the way. Never shrinks.
     */
    public void ensureCapacity(int series) {
        int capacity = hashes.length;
        while ((long) series * 2 > capacity && capacity < (1 << 30)) {
            capacity <<= 1;
        }
        if (capacity == hashes.length) {
            return;
        }
        long[] oldHashes = hashes;
        int[] oldIds = ids;
        allocate(capacity);
        size = 0;
        for (int i = 0; i < oldIds.length; i++) {
            if (oldIds[i] != EMPTY) {
                insert(oldHashes[i], oldIds[i]);
            }
        }
    }

    /** Adds a series known to be absent. */
    public void insert(long hash, int id) {
        if ((size + 1) * 2 > hashes.length) {
            grow();
        }
        int slot = slot(hash);
        while (ids[slot] != EMPTY) {
            slot = (slot + 1) & mask;
        }
        hashes[slot] = hash;
        ids[slot] = id;
        size++;
    }

    /** Removes series {@code id} (with this hash); returns whether it was present. */
    boolean remove(long hash, int id) {
        int slot = slot(hash);
        while (ids[slot] != id) {
            if (ids[slot] == EMPTY) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        // Backward-shift: move later entries of the probe run into the hole when that keeps them reachable.
        int hole = slot;
        for (int next = (hole + 1) & mask; ids[next] != EMPTY; next = (next + 1) & mask) {
            int home = slot(hashes[next]);
            boolean reachableFromHole = ((next - home) & mask) >= ((next - hole) & mask);
            if (reachableFromHole) {
                hashes[hole] = hashes[next];
                ids[hole] = ids[next];
                hole = next;
            }
        }
        ids[hole] = EMPTY;
        size--;
        return true;
    }

    private void grow() {
        ensureCapacity(hashes.length);
    }

    private int slot(long hash) {
        // The hash is already MurmurHash3; a multiply spreads its bits again in case a caller forces collisions in low bits.
        return (int) ((hash * MURMUR_MIX) >>> 32) & mask;
    }
}
