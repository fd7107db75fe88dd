package io.sluice.wal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The layout of a segment file: a 32-byte header, then records (see {@link RecordDescriptor}) from
 * offset 32, then zeros up to the segment size. Integers are little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |              magic "SLWL" (0x4C574C53 as int32)               |  0
 *  +-------------------------------+-------------------------------+
 *  |  format version (int16) = 1   |   header length (int16) = 32  |  4
 *  +-------------------------------+-------------------------------+
 *  |                     segment index (int32)                     |  8
 *  +---------------------------------------------------------------+
 *  |                  segment size in bytes (int32)                | 12
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (12 bytes)                ... 16
 *  +---------------------------------------------------------------+
 *  |              header CRC32C of bytes 0-27 (int32)              | 28
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The file is named after its index, {@code %010d.wal}; the index in the header must match the
 * name, so a misplaced or renamed file is caught. The segment size is the file size the writer
 * preallocated; a file shorter than that has lost its end.
 */
final class SegmentDescriptor {
    static final int MAGIC = 0x4C574C53;
    static final short FORMAT_VERSION = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int HEADER_LENGTH_OFFSET = 6;
    static final int INDEX_OFFSET = 8;
    static final int SIZE_OFFSET = 12;
    static final int CRC_OFFSET = 28;
    static final int HEADER_LENGTH = 32;

    static final String SUFFIX = ".wal";
    static final String TEMP_SUFFIX = ".wal.tmp";

    // Unaligned: headers are also built in heap buffers (byte alignment). Not a hot path.
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SegmentDescriptor() {
    }

    static String fileName(int index) {
        return String.format("%010d%s", index, SUFFIX);
    }

    static Path path(Path directory, int index) {
        return directory.resolve(fileName(index));
    }

    static Path tempPath(Path directory, int index) {
        return directory.resolve(String.format("%010d%s", index, TEMP_SUFFIX));
    }

    /** The index named by a segment file name, or -1 if the name is not a segment's. */
    static int parseIndex(String fileName) {
        if (fileName.length() != 10 + SUFFIX.length() || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        long index = 0;
        for (int i = 0; i < 10; i++) {
            char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            index = index * 10 + (c - '0');
        }
        return index > Integer.MAX_VALUE ? -1 : (int) index;
    }

    /** Writes a complete header for segment {@code index} of {@code sizeBytes} at offset 0. */
    static void writeHeader(MemorySegment target, int index, int sizeBytes) {
        target.asSlice(0, HEADER_LENGTH).fill((byte) 0);
        target.set(INT_LE, MAGIC_OFFSET, MAGIC);
        target.set(SHORT_LE, VERSION_OFFSET, FORMAT_VERSION);
        target.set(SHORT_LE, HEADER_LENGTH_OFFSET, (short) HEADER_LENGTH);
        target.set(INT_LE, INDEX_OFFSET, index);
        target.set(INT_LE, SIZE_OFFSET, sizeBytes);
        target.set(INT_LE, CRC_OFFSET, headerCrc(target));
    }

    /**
     * Checks the header of segment {@code index} held in {@code mapped} (the first {@code fileSize}
     * bytes of the file, or fewer). Returns null when it is sound, else what is wrong with it.
     *
     * @throws WalFormatException when the header is intact but written by a newer format version:
     *                            that is not damage, and repairing it would destroy good data
     */
    static String checkHeader(MemorySegment mapped, long fileSize, int index) throws WalFormatException {
        if (fileSize < HEADER_LENGTH || mapped.byteSize() < HEADER_LENGTH) {
            return "file is " + fileSize + " bytes, shorter than the " + HEADER_LENGTH + "-byte header";
        }
        int magic = mapped.get(INT_LE, MAGIC_OFFSET);
        if (magic != MAGIC) {
            return "magic 0x" + Integer.toHexString(magic) + " != 0x" + Integer.toHexString(MAGIC);
        }
        int storedCrc = mapped.get(INT_LE, CRC_OFFSET);
        int computedCrc = headerCrc(mapped);
        if (storedCrc != computedCrc) {
            return "header crc 0x" + Integer.toHexString(storedCrc) + " != computed 0x" + Integer.toHexString(computedCrc);
        }
        short version = mapped.get(SHORT_LE, VERSION_OFFSET);
        if (version != FORMAT_VERSION) {
            throw new WalFormatException("segment " + index + " has format version " + version
                    + "; this build reads version " + FORMAT_VERSION + " only");
        }
        int headerIndex = mapped.get(INT_LE, INDEX_OFFSET);
        if (headerIndex != index) {
            return "header names segment " + headerIndex + " but the file is segment " + index;
        }
        int size = declaredSize(mapped);
        if (!WalOptions.isValidSegmentSize(size)) {
            return "declared segment size " + size + " is out of range";
        }
        return null;
    }

    /** The segment size written in a sound header. */
    static int declaredSize(MemorySegment mapped) {
        return mapped.get(INT_LE, SIZE_OFFSET);
    }

    private static int headerCrc(MemorySegment header) {
        CRC32C crc = new CRC32C();
        crc.update(header.asSlice(0, CRC_OFFSET).asByteBuffer());
        return (int) crc.getValue();
    }
}
