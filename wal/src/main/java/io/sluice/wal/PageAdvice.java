package io.sluice.wal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * {@code madvise(2)} on ranges of a mapping, through the FFM linker (no JNI, no Unsafe).
 *
 * <p>Why: a reader that has gone past a range of a read-only file mapping no longer needs its pages
 * in the process' resident set. {@link #DONTNEED} drops them (the data stays in the page cache and
 * faults back in if read again), so replaying a WAL does not raise the RSS by a segment's worth of
 * file pages; {@link #SEQUENTIAL} doubles the kernel's read-ahead on a cold cache.
 *
 * <p>Advice is best effort: where the call is unavailable (not Linux, native access denied) or
 * fails, nothing happens and {@link #advise} returns false. Stateless; any thread.
 */
final class PageAdvice {
    /** No read-ahead or read-around on faults in the range. */
    static final int RANDOM = 1;
    static final int SEQUENTIAL = 2;
    /** Starts reading the range into the page cache now (asynchronously); maps nothing into the process. */
    static final int WILLNEED = 3;
    static final int DONTNEED = 4;
    /**
     * Transparent huge pages for the range ({@code MADV_HUGEPAGE}). On a file mapping the faults' read
     * then puts PMD-sized folios (2 MiB) into the page cache and maps them with one entry each, where
     * THP is "madvise" or "always" and the file system has large folios (ext4, XFS on current kernels).
     * Fails (EINVAL) without THP; pages cached already keep their folio size.
     */
    static final int HUGEPAGE = 14;
    /** Undoes {@link #HUGEPAGE} for a range (the VMA is split there). */
    static final int NOHUGEPAGE = 15;
    /** A PMD-sized huge page on x86-64 and arm64 with 4 KiB pages. */
    static final long HUGE_PAGE_BYTES = 2 << 20;
    /** The smallest page size of the platforms this runs on; ranges are aligned to it inward. */
    static final long PAGE_BYTES = 4096;

    private static final MethodHandle MADVISE = lookup();

    private PageAdvice() {
    }

    /** True if {@code madvise} could be linked (Linux with native access). */
    static boolean isAvailable() {
        return MADVISE != null;
    }

    /**
     * Advises bytes [from, to) of {@code mapping}, shrunk to whole pages inside the range (so nothing
     * outside it is affected). Returns true if the call succeeded or the range holds no whole page.
     */
    static boolean advise(MemorySegment mapping, long from, long to, int advice) {
        if (MADVISE == null) {
            return false;
        }
        long base = mapping.address();
        long start = (base + from + PAGE_BYTES - 1) & -PAGE_BYTES;
        long end = (base + Math.min(to, mapping.byteSize())) & -PAGE_BYTES;
        if (end <= start) {
            return true;
        }
        try {
            return (int) MADVISE.invokeExact(MemorySegment.ofAddress(start), end - start, advice) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle lookup() {
        try {
            Linker linker = Linker.nativeLinker();
            Optional<MemorySegment> symbol = linker.defaultLookup().find("madvise").or(() -> SymbolLookup.loaderLookup().find("madvise"));
            return symbol.map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // e.g. native access denied: advice is an optimisation, never required
        }
    }
}
