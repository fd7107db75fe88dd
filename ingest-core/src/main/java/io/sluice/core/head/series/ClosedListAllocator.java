package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_BYTES;

import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Memory for series' closed-chunk lists ({@link SeriesDescriptor}), which have no length cap:
 * lists of up to {@value #SMALL_MAX_ENTRIES} entries are {@link ChunkMemory} blocks (4 KiB at most);
 * larger ones are power-of-two regions of their own, addressed by a handle with {@link #LARGE} set
 * and the region's index below it. Freed regions go to a free stack per size and are reused, never
 * released before {@link #close()}: a reader holding a stale handle reads garbage (and retries on
 * its sequence check) but never faults.
 *
 * <p>Threads: the shard thread allocates and frees; any thread resolves handles.
 */
final class ClosedListAllocator implements AutoCloseable {
    static final int SMALL_MAX_ENTRIES = ChunkMemory.MAX_BLOCK_BYTES / CLOSED_ENTRY_BYTES;
    /** Tag bit of a large list's handle; ChunkHandles never set it. */
    static final long LARGE = 1L << 62;
    private static final int MAX_CLASSES = 32;

    private final ChunkMemory small;
    private final MemoryAccounting accounting;
    private final Arena arena = Arena.ofShared();
    private volatile MemorySegment[] regions = new MemorySegment[16]; // by index; written by the shard thread
    private int regionCount;
    private final int[][] freeByClass = new int[MAX_CLASSES][];      // shard thread: stacks of free region indexes
    private final int[] freeCounts = new int[MAX_CLASSES];
    private long largeBytes;

    ClosedListAllocator(ChunkMemory small, MemoryAccounting accounting) {
        this.small = small;
        this.accounting = accounting;
    }

    /** A list of room for {@code entries} (a power of two, at least 1). Shard thread. */
    long allocate(int entries) {
        if (entries <= SMALL_MAX_ENTRIES) {
            return small.allocate(entries * CLOSED_ENTRY_BYTES);
        }
        int sizeClass = Integer.numberOfTrailingZeros(entries);
        if (freeCounts[sizeClass] > 0) {
            return LARGE | freeByClass[sizeClass][--freeCounts[sizeClass]];
        }
        long bytes = (long) entries * CLOSED_ENTRY_BYTES;
        MemorySegment region = arena.allocate(bytes, 64);
        accounting.allocated(MemoryTag.SERIES, bytes);
        largeBytes += bytes;
        MemorySegment[] r = regions;
        if (regionCount == r.length) {
            r = Arrays.copyOf(r, r.length * 2);
        }
        r[regionCount] = region;
        regions = r; // published before the handle is
        return LARGE | regionCount++;
    }

    /** Returns a list; readers may still read it (garbage). Shard thread. */
    void free(long handle) {
        if ((handle & LARGE) == 0) {
            small.free(handle);
            return;
        }
        int index = (int) (handle & ~LARGE);
        int sizeClass = Integer.numberOfTrailingZeros(capacityEntries(handle));
        int[] stack = freeByClass[sizeClass];
        if (stack == null || freeCounts[sizeClass] == stack.length) {
            freeByClass[sizeClass] = stack = stack == null ? new int[4] : Arrays.copyOf(stack, stack.length * 2);
        }
        stack[freeCounts[sizeClass]++] = index;
    }

    /** Entries the list has room for. Any thread (a plausible handle). */
    int capacityEntries(long handle) {
        if ((handle & LARGE) == 0) {
            return ChunkHandle.capacityBytes(handle) / CLOSED_ENTRY_BYTES;
        }
        return (int) (regions[(int) (handle & ~LARGE)].byteSize() / CLOSED_ENTRY_BYTES);
    }

    MemorySegment segment(long handle) {
        return (handle & LARGE) == 0 ? small.page(handle) : regions[(int) (handle & ~LARGE)];
    }

    long offset(long handle) {
        return (handle & LARGE) == 0 ? ChunkMemory.offset(handle) : 0L;
    }

    /** Whether a handle a reader took (maybe from freed memory) can be resolved safely. Any thread. */
    boolean isPlausible(long handle) {
        if ((handle & LARGE) == 0) {
            return small.isPlausible(handle);
        }
        long index = handle & ~LARGE;
        MemorySegment[] r = regions;
        return index >= 0 && index < r.length && r[(int) index] != null;
    }

    /** Bytes of large regions reserved (small lists count in the chunk memory). */
    long largeBytes() {
        return largeBytes;
    }

    @Override
    public void close() {
        regions = new MemorySegment[0];
        arena.close();
        accounting.released(MemoryTag.SERIES, largeBytes);
        largeBytes = 0;
    }
}
