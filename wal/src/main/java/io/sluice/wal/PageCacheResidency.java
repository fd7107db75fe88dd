package io.sluice.wal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * How many pages of a range of a file mapping are in the page cache: {@code mincore(2)} through the
 * FFM linker. Asking touches no page (nothing is read, nothing enters the resident set).
 *
 * <p>Why: work that helps only when data is on disk should be skipped when memory holds it. The
 * WAL reader's read-ahead ({@code MADV_WILLNEED}, {@link MappedSegment#readAhead}) is a syscall per
 * 512 KiB even when every page is cached (+15–35 % on reads of cached 1–16 KiB records); the chunk
 * files' CRC pass at a restart reads with {@code O_DIRECT} so that gigabytes read once do not churn
 * the page cache, but a range already cached is a memory copy away through the cache and a disk read
 * away with {@code O_DIRECT} (ingest-core's {@code DirectReads} asks this before each read).
 *
 * <p>Best effort: where {@code mincore} cannot be linked (not Linux, native access denied) or fails,
 * {@link #cachedPages} returns -1 and the caller reads as it would have without asking. Stateless; any thread.
 */
public final class PageCacheResidency {
    public static final long PAGE_BYTES = 4096;
    private static final MethodHandle MINCORE = lookup();

    private PageCacheResidency() {
    }

    /** True if {@code mincore} could be linked. */
    public static boolean isAvailable() {
        return MINCORE != null;
    }

    /**
     * Pages of bytes [from, from + length) of {@code mapping} (page-aligned at its start, as file
     * mappings are) that are in the page cache, or -1 if that cannot be told. {@code from} is
     * rounded down and the end up to whole pages, within the mapping.
     */
    public static long cachedPages(MemorySegment mapping, long from, long length) {
        if (MINCORE == null) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            return cachedPages(mapping, from, length, arena.allocate(vectorBytes(pagesIn(mapping, from, length)), Long.BYTES));
        }
    }

    /**
     * {@link #cachedPages(MemorySegment, long, long)} with the caller's result vector (at least
     * {@link #vectorBytes} of the range's pages, 8-byte aligned), so a caller asking repeatedly (a
     * WAL reader, every few MiB) allocates nothing; the vector's contents are overwritten.
     */
    static long cachedPages(MemorySegment mapping, long from, long length, MemorySegment vector) {
        if (MINCORE == null) {
            return -1;
        }
        long start = Math.max(0, from) & -PAGE_BYTES;
        long pages = pagesIn(mapping, from, length);
        if (pages <= 0) {
            return 0;
        }
        try {
            int result = (int) MINCORE.invokeExact(MemorySegment.ofAddress(mapping.address() + start), pages * PAGE_BYTES, vector);
            return result != 0 ? -1 : countResident(vector, pages);
        } catch (Throwable e) {
            return -1;
        }
    }

    /** Bytes a result vector needs for {@code pages}: one per page, rounded up to whole longs. */
    static long vectorBytes(long pages) {
        return Math.max(Long.BYTES, (pages + Long.BYTES - 1) & -Long.BYTES);
    }

    /** Whole pages of [from, from + length) within the mapping, the ends rounded outward. */
    private static long pagesIn(MemorySegment mapping, long from, long length) {
        long start = Math.max(0, from) & -PAGE_BYTES;
        long end = Math.min(mapping.byteSize(), (from + length + PAGE_BYTES - 1) & -PAGE_BYTES);
        return end <= start ? 0 : (end - start + PAGE_BYTES - 1) / PAGE_BYTES;
    }

    /** Bit 0 of each of the first {@code pages} bytes, eight bytes at a time (8x fewer iterations, a smaller compile). */
    private static long countResident(MemorySegment vector, long pages) {
        long cached = 0;
        long whole = pages & -Long.BYTES;
        for (long i = 0; i < whole; i += Long.BYTES) {
            cached += Long.bitCount(vector.get(ValueLayout.JAVA_LONG_UNALIGNED, i) & 0x0101010101010101L);
        }
        for (long i = whole; i < pages; i++) {
            cached += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
        }
        return cached;
    }

    private static MethodHandle lookup() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("mincore").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // e.g. native access denied: asking is an optimisation, never required
        }
    }
}
