package io.sluice.core.head.chunkfiles;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What the CRC pass ({@link ChunkFileScanner}) found in one chunk file: the intact entries' offsets,
 * series ids and sample counts, in file order (10 bytes per chunk), the damaged entries and where
 * the scan stopped. Written by the thread that scans, then only read (published by the future
 * {@link ChunkFileSet} hands it over with).
 */
final class ChunkFileScan {
    final Path path;
    String headerProblem;  // the file is missing or has no header: every ref into it is damaged
    String problem;        // the entry the scan stopped at, if its length was impossible
    final Map<Long, String> damagedEntries = new HashMap<>(); // entries with a bad CRC (skipped)
    long problemPosition = Long.MAX_VALUE;
    long end;              // where the scan stopped
    long size;             // the file's size
    boolean readDirect;    // every byte was read with O_DIRECT
    int count;
    int[] offsets = new int[1024];
    int[] series = new int[1024];
    short[] samples = new short[1024];

    ChunkFileScan(Path path) {
        this.path = path;
    }

    void add(long offset, int seriesId, short numSamples) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            series = Arrays.copyOf(series, count * 2);
            samples = Arrays.copyOf(samples, count * 2);
        }
        offsets[count] = (int) offset;
        series[count] = seriesId;
        samples[count] = numSamples;
        count++;
    }

    void damaged(long at, String why) {
        problem = why;
        problemPosition = at;
    }

    /**
     * The index of the entry starting at {@code offset}, or -1. Entries are similar in size, so the
     * position is guessed from the file's average entry and the search gallops from there: a few
     * probes instead of a binary search's ~20 cache misses per chunk ref of a restore.
     */
    int find(long offset) {
        if (offset > Integer.MAX_VALUE || count == 0) {
            return -1;
        }
        int key = (int) offset;
        long span = (long) offsets[count - 1] - offsets[0];
        int guess = span <= 0 ? 0 : (int) Math.min(count - 1, Math.max(0, (key - (long) offsets[0]) * (count - 1) / span));
        int lo;
        int hi;
        if (offsets[guess] <= key) {
            lo = guess;
            int step = 1;
            hi = guess + step;
            while (hi < count && offsets[hi] <= key) {
                lo = hi;
                step <<= 1;
                hi = guess + step;
            }
            hi = Math.min(hi, count);
        } else {
            hi = guess;
            int step = 1;
            lo = guess - step;
            while (lo > 0 && offsets[lo] > key) {
                hi = lo;
                step <<= 1;
                lo = guess - step;
            }
            lo = Math.max(lo, 0);
        }
        return Math.max(-1, Arrays.binarySearch(offsets, lo, hi, key)); // offsets[lo] <= key < offsets[hi] when found
    }
}
