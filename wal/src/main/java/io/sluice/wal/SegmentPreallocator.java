package io.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Gives a segment file real, zeroed blocks before it is mapped.
 *
 * <p>Why not {@code setLength}: a sparse file has no blocks, and when a store into its mapping
 * needs one on a full disk the kernel answers with SIGBUS, which kills the JVM. Writing zeros with
 * write(2) makes the file system allocate the blocks (or, with delayed allocation as in ext4 and
 * XFS, reserve them) now, so a full disk is an {@link IOException} here, at roll time, and never a
 * signal later. The zeros are not fsynced: records overwrite those pages within seconds, and
 * forcing them first would double the disk traffic of every segment.
 *
 * <p>{@link #ALLOCATE}, what the WAL uses, gets the same blocks without writing them
 * ({@code posix_fallocate}, {@link FileExtents}): the file system reserves them as unwritten extents,
 * which read as zeros, cost no write at roll time, and which open's check of the last segment's
 * tail skips instead of reading up to a whole segment of zeros ({@link FileZeroCheck}). Where that
 * call cannot be made it writes zeros like {@link #ZERO_FILL}.
 *
 * <p>A package-private seam so tests can simulate a full disk.
 */
interface SegmentPreallocator {
    /** Gives {@code file} (open as {@code channel}) real, zero-reading blocks for bytes [fromBytes, toBytes). */
    void preallocate(Path file, FileChannel channel, long fromBytes, long toBytes) throws IOException;

    /** Writes zeros. */
    SegmentPreallocator ZERO_FILL = (file, channel, fromBytes, toBytes) -> ZeroFill.write(channel, fromBytes, toBytes);

    /** Allocates without writing where the file system can ({@code posix_fallocate}), else writes zeros. */
    SegmentPreallocator ALLOCATE = (file, channel, fromBytes, toBytes) -> {
        if (!FileExtents.allocate(file, fromBytes, toBytes)) {
            ZeroFill.write(channel, fromBytes, toBytes);
        }
    };

    /** One shared 1 MiB of zeros; each call writes from its own duplicate (own position and limit). */
    final class ZeroFill {
        private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

        private ZeroFill() {
        }

        static void write(FileChannel channel, long fromBytes, long toBytes) throws IOException {
            ByteBuffer zeros = ZEROS.duplicate();
            long at = fromBytes;
            while (at < toBytes) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), toBytes - at));
                at += channel.write(zeros, at);
            }
        }
    }
}
