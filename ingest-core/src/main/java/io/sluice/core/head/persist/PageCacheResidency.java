package io.sluice.core.head.persist;

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
 * <p>Why: the restart's CRC pass reads chunk files with {@code O_DIRECT} so that gigabytes read once
 * do not churn the page cache; but a range already cached (a restart soon after a stop, files just
 * written) is a memory copy away through the page cache and a disk read away with {@code O_DIRECT}.
 * {@link DirectReads} asks this before each read and takes the cheaper path.
 *
 * <p>Best effort: where {@code mincore} cannot be linked (not Linux, native access denied) or fails,
 * {@link #cachedPages} returns -1 and the caller reads as it would have without asking. Stateless; any thread.
 */
final class PageCacheResidency {
    static final long PAGE_BYTES = 4096;
    private static final MethodHandle MINCORE = lookup();

    private PageCacheResidency() {
    }

    /** True if {@code mincore} could be linked. */
    static boolean isAvailable() {
        return MINCORE != null;
    }

    /**
     * Pages of bytes [from, from + length) of {@code mapping} (page-aligned at its start, as file
     * mappings are) that are in the page cache, or -1 if that cannot be told. {@code from} is
     * rounded down and the end up to whole pages, within the mapping.
     */
    static long cachedPages(MemorySegment mapping, long from, long length) {
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
