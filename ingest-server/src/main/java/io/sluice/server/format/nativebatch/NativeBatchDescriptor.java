package io.sluice.server.format.nativebatch;

/**
 * Layout of a {@code sluice} native batch, version 1: the one place it is described in code (the
 * full specification, with what a decoder must reject and how the format evolves, is
 * docs/format/native-batch.md). All integers are little-endian, the byte order of x86-64 and
 * AArch64, so every fixed-width field is one plain load.
 *
 * <pre>
 * Header, 24 bytes:
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  magic 'S' 'L' 'C' 'B'                        |  0
 *  +---------------+---------------+-------------------------------+
 *  |  version = 1  |     flags     |        reserved = 0           |  4
 *  +---------------+---------------+-------------------------------+
 *  |                 seriesCount (u32)                             |  8
 *  +---------------------------------------------------------------+
 *  |          crc32c (u32) of bytes [24, end), or 0                |  12
 *  +---------------------------------------------------------------+
 *  |                 baseTimestampMs (i64)                         |  16
 *  |                 (0 unless TIMESTAMP_DELTAS)                   |
 *  +---------------------------------------------------------------+
 *
 * Then seriesCount times:
 *  +------------------+---------------------+------------------+------------------------+
 *  | labelsLength u32 | labels (canonical)  | sampleCount u32  | sampleCount samples    |
 *  +------------------+---------------------+------------------+------------------------+
 *  labels: for each label sorted by name: uvarint(nameLen) name uvarint(valueLen) value
 *  sampleCount is at least 1.
 *
 * A sample, flags without TIMESTAMP_DELTAS (16 bytes):
 *  +--------------------+-------------------------+
 *  | timestampMs i64    | value float64 bits u64  |
 *  +--------------------+-------------------------+
 * A sample, flags with TIMESTAMP_DELTAS (9 to 18 bytes):
 *  +---------------------------------------+-------------------------+
 *  | zigzag uvarint(timestampMs - previous) | value float64 bits u64  |
 *  +---------------------------------------+-------------------------+
 *  where previous is baseTimestampMs for a series' first sample.
 * </pre>
 */
public final class NativeBatchDescriptor {
    /** 'S' 'L' 'C' 'B' read as a little-endian int. */
    public static final int MAGIC = 'S' | 'L' << 8 | 'C' << 16 | 'B' << 24;
    public static final int VERSION_1 = 1;

    /** Sample timestamps are zigzag varint deltas from the previous one (baseTimestampMs first). */
    public static final int FLAG_TIMESTAMP_DELTAS = 0x01;
    /** The crc32c field holds the CRC32C of every byte after the header. */
    public static final int FLAG_CRC32C = 0x02;
    public static final int KNOWN_FLAGS = FLAG_TIMESTAMP_DELTAS | FLAG_CRC32C;

    public static final int MAGIC_OFFSET = 0;
    public static final int MAGIC_LENGTH = 4;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    public static final int FLAGS_OFFSET = VERSION_OFFSET + 1;
    public static final int RESERVED_OFFSET = FLAGS_OFFSET + 1;
    public static final int SERIES_COUNT_OFFSET = RESERVED_OFFSET + 2;
    public static final int CRC_OFFSET = SERIES_COUNT_OFFSET + 4;
    public static final int BASE_TIMESTAMP_OFFSET = CRC_OFFSET + 4;
    public static final int HEADER_LENGTH = BASE_TIMESTAMP_OFFSET + 8;

    public static final int LABELS_LENGTH_LENGTH = 4;
    public static final int SAMPLE_COUNT_LENGTH = 4;
    public static final int RAW_SAMPLE_LENGTH = 16;
    /** A delta sample's smallest size: a 1-byte varint and the 8-byte value. */
    public static final int MIN_DELTA_SAMPLE_LENGTH = 9;

    private NativeBatchDescriptor() {
    }
}
