package io.sluice.wal;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The layout of one record (a frame) inside a segment. All integers are little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 frame length (int32, >= 16)                   |  0  published last (release)
 *  +---------------------------------------------------------------+
 *  |                       CRC32C (int32)                          |  4
 *  +---------------+-----------------------------------------------+
 *  |  type (uint8) |          reserved, zero (3 bytes)             |  8
 *  +---------------+-----------------------------------------------+
 *  |                    reserved, zero (int32)                     | 12
 *  +---------------------------------------------------------------+
 *  |                   payload (frame length - 16 bytes)          ...  16  8-byte aligned
 *  +---------------------------------------------------------------+
 *  |        zero padding up to the next multiple of 8 bytes       ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Frame length counts the header and the payload, not the padding; the next record starts at
 * {@link #alignedLength(int)}. A frame length of 0 means "no record here (yet)": segments are
 * zero-filled and the writer keeps everything after its tail zero.
 *
 * <p>The CRC32C covers bytes 0–3 (the frame length) followed by bytes 8 to frame length − 1 (type,
 * reserved bytes and payload); only the CRC field itself is left out. Padding is not covered.
 *
 * <p>Type 0 is the end-of-segment marker (frame length 16, no payload): the writer appends it
 * before moving to the next segment, so a reader knows the log continues there, and zeros before
 * it in a sealed segment are damage rather than the end of the log. Caller types are 1 to 255.
 */
final class RecordDescriptor {
    static final int LENGTH_OFFSET = 0;
    static final int CRC_OFFSET = 4;
    static final int TYPE_OFFSET = 8;
    static final int HEADER_LENGTH = 16;
    static final int ALIGNMENT = 8;

    static final int END_OF_SEGMENT_TYPE = 0;
    static final int MIN_TYPE = 1;
    static final int MAX_TYPE = 255;
    /** Space every segment keeps free for its end-of-segment marker. */
    static final int END_MARKER_LENGTH = HEADER_LENGTH;

    static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Frame length with acquire/release access: coordinates (MemorySegment, long offset). */
    static final VarHandle FRAME_LENGTH = INT_LE.varHandle();

    private RecordDescriptor() {
    }

    /** Bytes a frame of {@code frameLength} occupies, padding included. */
    static int alignedLength(int frameLength) {
        return (frameLength + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The largest payload a segment of {@code segmentSizeBytes} can hold in one record. */
    static int maxPayloadLength(int segmentSizeBytes) {
        int room = segmentSizeBytes - SegmentDescriptor.HEADER_LENGTH - END_MARKER_LENGTH - HEADER_LENGTH;
        return room & -ALIGNMENT;
    }

    static boolean isCallerType(int type) {
        return type >= MIN_TYPE && type <= MAX_TYPE;
    }
}
