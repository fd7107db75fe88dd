package io.sluice.wal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * Where a file holds data, and blocks for it without writing them: {@code posix_fallocate(3)} and
 * {@code lseek(2)} with {@code SEEK_DATA}/{@code SEEK_HOLE}, through the FFM linker (no JNI).
 *
 * <p>Why: a WAL segment is preallocated to its full size, and open must check that everything after
 * the last segment's valid records is zero (a non-zero byte there is a lost page with records after
 * it). Written with zeros, the whole preallocated tail is data and has to be read: 128 MiB per shard
 * at every restart. Allocated with {@code posix_fallocate}, the file system (ext4, XFS, btrfs) keeps
 * the untouched blocks as unwritten extents, which read as zeros by definition and which
 * {@code SEEK_DATA} skips, so open reads only what was ever written (or is in the page cache). The
 * blocks are still reserved now: a full disk is an error from {@link #allocate}, never a SIGBUS
 * from a later store into the mapping.
 *
 * <p>Best effort where it cannot help: if the calls cannot be linked (not Linux, native access
 * denied) {@link #allocate} returns false (the caller writes zeros instead) and {@link DataRanges}
 * reports the whole file as data; a file system without extents answers SEEK_DATA as "all data",
 * which is only slower. Stateless; any thread.
 */
final class FileExtents {
    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int SEEK_END = 2;
    private static final int SEEK_DATA = 3;
    private static final int SEEK_HOLE = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = find("open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = find("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle LSEEK = find("lseek", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    /**
     * Linked on first use, when a segment is created: a restart's open needs only lseek, and each
     * downcall handle costs milliseconds of CPU to create in a fresh JVM.
     */
    private static final class Allocation {
        /** Returns an error number itself (errno is not set). */
        static final MethodHandle POSIX_FALLOCATE = find("posix_fallocate", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    }

    private FileExtents() {
    }

    static boolean isAvailable() {
        return OPEN != null && CLOSE != null && LSEEK != null;
    }

    /**
     * Gives {@code file} real blocks for bytes [from, to), growing it to {@code to} if shorter,
     * without writing them. Returns false (nothing done) if that cannot be asked here; the caller
     * then writes zeros.
     *
     * @throws IOException if the file system refuses, e.g. "No space left on device" (errno 28)
     */
    static boolean allocate(Path file, long from, long to) throws IOException {
        boolean available = isAvailable() && Allocation.POSIX_FALLOCATE != null;
        if (!available || to <= from) {
            return available;
        }
        int fd = open(file, O_RDWR);
        if (fd < 0) {
            return false;
        }
        try {
            int error = (int) Allocation.POSIX_FALLOCATE.invokeExact(fd, from, to - from);
            if (error != 0) {
                throw new IOException("cannot allocate " + (to - from) + " bytes for " + file + ": " + describe(error));
            }
            return true;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        } finally {
            close(fd);
        }
    }

    /** The message strerror gives for the errors a full or limited disk returns; the number otherwise. */
    private static String describe(int errno) {
        return switch (errno) {
            case 28 -> "No space left on device (errno 28)";
            case 122 -> "Disk quota exceeded (errno 122)";
            case 27 -> "File too large (errno 27)";
            default -> "errno " + errno;
        };
    }

    private static int open(Path file, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), flags | O_CLOEXEC);
        } catch (Throwable e) {
            return -1;
        }
    }

    private static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            // nothing to do: the descriptor is gone either way
        }
    }

    private static MethodHandle find(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        try {
            return LINKER.defaultLookup().find(name).map(address -> LINKER.downcallHandle(address, descriptor, options))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // e.g. native access denied: everything here is an optimisation
        }
    }

    /**
     * The data ranges of one file, read-only: {@link #nextData} skips what the file system knows
     * to be zeros (holes, unwritten extents with no page-cache pages). Owner thread; close it.
     */
    static final class DataRanges implements AutoCloseable {
        private final int fd;

        private DataRanges(int fd) {
            this.fd = fd;
        }

        /** Opens {@code file}; where extents cannot be asked, every byte counts as data. */
        static DataRanges open(Path file) {
            return new DataRanges(isAvailable() ? FileExtents.open(file, O_RDONLY) : -1);
        }

        /**
         * The first offset in [from, end) that may hold non-zero bytes, or {@code end} if the file
         * system says none does. Any doubt (no descriptor, an error) answers {@code from}.
         */
        long nextData(long from, long end) {
            if (from >= end || fd < 0) {
                return Math.min(from, end);
            }
            long at = seek(from, SEEK_DATA);
            if (at < 0) {
                // ENXIO (no data at or after from) or an error. Told apart without capturing errno (a
                // costlier downcall to link): in a trailing hole SEEK_HOLE answers from itself, past the
                // end of the file it fails too, and both mean zeros up to the end; anything else: data.
                long hole = seek(from, SEEK_HOLE);
                return hole == from || (hole < 0 && from >= fileSize()) ? end : from;
            }
            return Math.min(Math.max(at, from), end);
        }

        private long fileSize() {
            long size = seek(0, SEEK_END);
            return size < 0 ? Long.MAX_VALUE : size;
        }

        /** The first offset in [from, end) that is known to read as zeros, or {@code end}. */
        long nextHole(long from, long end) {
            if (from >= end || fd < 0) {
                return end;
            }
            long at = seek(from, SEEK_HOLE);
            return at < 0 ? end : Math.min(Math.max(at, from), end);
        }

        /** lseek's result, or -1 on failure. */
        private long seek(long offset, int whence) {
            try {
                return (long) LSEEK.invokeExact(fd, offset, whence);
            } catch (Throwable e) {
                return -1;
            }
        }

        @Override
        public void close() {
            if (fd >= 0) {
                FileExtents.close(fd);
            }
        }
    }
}
