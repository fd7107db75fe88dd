package io.sluice.core.head.checkpoint;

import java.nio.file.Path;

/**
 * The layout of a shard checkpoint ({@code shard-i/checkpoint.<walPosition as 16 hex digits>});
 * docs/format/checkpoint.md describes it byte by byte. Every integer is little-endian.
 *
 * <pre>
 *  file  := block(HEADER) block(STREAMS) block(SERIES)* block(OUT_OF_ORDER)* block(END)
 *  block := kind:u8 | 0:u8[3] | length:u32 | payload[length] | crc32c:u32   (over kind..payload)
 * </pre>
 *
 * A SERIES block holds whole series records and stays near {@link #SERIES_BLOCK_BYTES}, so a
 * checkpoint of millions of series is checked and read block by block.
 */
public final class CheckpointDescriptor {
    public static final String PREFIX = "checkpoint.";
    public static final String TMP_SUFFIX = ".tmp";
    public static final int MAGIC = 0x504B_4353; // "SCKP" in file order
    public static final byte VERSION = 3;
    /** Version 2 files are version 3 files without OUT_OF_ORDER blocks: still loaded. */
    public static final byte OLDEST_READABLE_VERSION = 2;

    public static final byte HEADER = 1;
    public static final byte STREAMS = 2;
    public static final byte SERIES = 3;
    public static final byte END = 4;
    /** Series' out-of-order samples: {@code (id:u32 count:u32 (timestampMs:i64 valueBits:i64)*count)*}, time-ordered. */
    public static final byte OUT_OF_ORDER = 5;

    public static final int BLOCK_HEADER_BYTES = 8;
    public static final int BLOCK_TRAILER_BYTES = 4;
    /** A SERIES block is closed once its payload passes this size. */
    public static final int SERIES_BLOCK_BYTES = 1 << 20;

    private CheckpointDescriptor() {
    }

    public static Path path(Path shardDirectory, long walPosition) {
        return shardDirectory.resolve(PREFIX + String.format("%016x", walPosition));
    }

    /** The WAL position in a checkpoint file name, or -1 if the name is not a (complete) checkpoint's. */
    public static long parsePosition(String fileName) {
        if (!fileName.startsWith(PREFIX) || fileName.length() != PREFIX.length() + 16) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(fileName.substring(PREFIX.length()), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
