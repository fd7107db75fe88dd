package io.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

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
 * <p>A package-private seam so tests can simulate a full disk; the WAL uses {@link #ZERO_FILL}.
 */
interface SegmentPreallocator {
    /** Writes zeros so that the file holds real blocks for bytes [fromBytes, toBytes). */
    void preallocate(FileChannel channel, long fromBytes, long toBytes) throws IOException;

    SegmentPreallocator ZERO_FILL = ZeroFill::write;

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
