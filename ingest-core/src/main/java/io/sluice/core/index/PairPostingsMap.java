package io.sluice.core.index;

import org.roaringbitmap.RoaringBitmap;

/**
 * (name id, value id) -> postings: an open-addressing map with primitive long keys
 * ({@code nameId << 32 | valueId}), linear probing, load at most 1/2 and backward-shift deletion
 * (no tombstones, so lookups stay short after idle-series eviction). A null value marks a free slot.
 * Not thread-safe: {@link Postings} guards it with its lock.
 */
final class PairPostingsMap {
    private static final int INITIAL_SLOTS = 1024;

    private long[] keys = new long[INITIAL_SLOTS];
    private RoaringBitmap[] values = new RoaringBitmap[INITIAL_SLOTS];
    private int size;

    static long key(int nameId, int valueId) {
        return (long) nameId << 32 | (valueId & 0xFFFF_FFFFL);
    }

    int size() {
        return size;
    }

    /** The postings of the pair, or null. */
    RoaringBitmap get(long key) {
        return values[indexOf(key)];
    }

    /** The postings of the pair, created empty if absent. */
    RoaringBitmap getOrCreate(long key) {
        int i = indexOf(key);
        if (values[i] != null) {
            return values[i];
        }
        RoaringBitmap created = new RoaringBitmap();
        keys[i] = key;
        values[i] = created;
        if (++size * 2 > keys.length) {
            resize(keys.length * 2);
        }
        return created;
    }

    /** Removes the pair; false if it was absent. */
    boolean remove(long key) {
        int i = indexOf(key);
        if (values[i] == null) {
            return false;
        }
        shiftBack(i, keys.length - 1);
        size--;
        return true;
    }

    /** The slot holding {@code key}, or the free slot that ends its probe run. */
    private int indexOf(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (values[i] != null && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Approximate heap bytes of the map and its bitmaps. */
    long heapBytes() {
        long bytes = 12L * keys.length;
        for (RoaringBitmap b : values) {
            bytes += b == null ? 0 : b.getLongSizeInBytes() + 32;
        }
        return bytes;
    }

    /** Fills the hole at {@code free} by moving back later entries of the same probe run. */
    private void shiftBack(int free, int mask) {
        int i = free;
        while (true) {
            i = (i + 1) & mask;
            if (values[i] == null) {
                break;
            }
            int home = slot(keys[i], mask);
            // Move entry i into the hole unless its home lies cyclically in (free, i].
            boolean stays = free <= i ? free < home && home <= i : free < home || home <= i;
            if (!stays) {
                keys[free] = keys[i];
                values[free] = values[i];
                free = i;
            }
        }
        values[free] = null;
    }

    private void resize(int slots) {
        long[] oldKeys = keys;
        RoaringBitmap[] oldValues = values;
        keys = new long[slots];
        values = new RoaringBitmap[slots];
        int mask = slots - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldValues[j] != null) {
                int i = slot(oldKeys[j], mask);
                while (values[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing: the high bits are well mixed
        return (int) (h >>> 32) & mask;
    }
}
