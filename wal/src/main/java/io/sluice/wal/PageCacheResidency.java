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
        long start = Math.max(0, from) & -PAGE_BYTES;
        long end = Math.min(mapping.byteSize(), (from + length + PAGE_BYTES - 1) & -PAGE_BYTES);
        if (end <= start) {
            return 0;
        }
        int pages = (int) ((end - start + PAGE_BYTES - 1) / PAGE_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(pages);
            int result = (int) MINCORE.invokeExact(MemorySegment.ofAddress(mapping.address() + start), end - start, vector);
            if (result != 0) {
                return -1;
            }
            long cached = 0;
            for (int i = 0; i < pages; i++) {
                cached += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return cached;
        } catch (Throwable e) {
            return -1;
        }
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
