package io.sluice.wal;

import static io.sluice.wal.RecordDescriptor.HEADER_LENGTH;

import java.nio.file.Path;

/**
 * Walks the records of one mapped segment, checking each, and says where its valid log ends and
 * why. Used on open and by inspection (never on the append or read path, so it may allocate).
 *
 * <p>Beyond the per-frame checks of {@link MappedSegment#check(int)}, a scan knows the segment is
 * at rest, so it can tell damage from "not written yet": a zero length under a non-zero header is
 * a bad length; a zero length with data somewhere after it is a zeroed region; a segment that is not
 * the last must end with its end-of-segment marker; and a checksum failure followed only by zeros
 * in the last segment is a torn write rather than a flipped bit.
 */
final class SegmentScan {
    /** Where the valid records end: at the end marker, the first empty frame, or the damage. */
    int endOffset = SegmentDescriptor.HEADER_LENGTH;
    /** The valid records end with an end-of-segment marker. */
    boolean sealed;
    long records;
    int firstRecordOffset = -1;
    int lastRecordOffset = -1;
    /** Null if the segment is sound. */
    CorruptionReason reason;
    String detail;
    long bytesCut;
    /** Bytes the zero checks of the segment's end read from the file ({@link FileZeroCheck}; tests). */
    long zeroBytesRead;

    private SegmentScan() {
    }

    /**
     * Scans {@code segment} (the mapping of {@code file}), whose header has been checked, adding its
     * record counts to {@code recordsByType} (indexed by type).
     */
    static SegmentScan scan(MappedSegment segment, Path file, boolean isLast, long[] recordsByType) {
        SegmentScan scan = new SegmentScan();
        int offset = SegmentDescriptor.HEADER_LENGTH;
        while (true) {
            FrameStatus status = segment.check(offset);
            if (status != FrameStatus.RECORD) {
                scan.endOffset = offset;
                FileZeroCheck zeros = new FileZeroCheck(file, segment);
                scan.classifyEnd(segment, zeros, offset, status, isLast);
                scan.zeroBytesRead = zeros.bytesRead();
                return scan;
            }
            // check() read the frame's length and type: no second read of the header
            recordsByType[segment.checkedType()]++;
            scan.records++;
            if (scan.firstRecordOffset < 0) {
                scan.firstRecordOffset = offset;
            }
            scan.lastRecordOffset = offset;
            offset += RecordDescriptor.alignedLength(segment.checkedFrameLength());
            segment.releaseBehind(offset); // a scan reads every page once: keep them out of the resident set
        }
    }

    private void classifyEnd(MappedSegment segment, FileZeroCheck zeros, int offset, FrameStatus status, boolean isLast)
            {
        long available = segment.availableBytes();
        switch (status) {
            case END_OF_SEGMENT -> sealed = true;
            case EMPTY -> classifyEmpty(segment, zeros, offset, isLast, available);
            case BAD_LENGTH -> damage(segment, offset, CorruptionReason.BAD_LENGTH,
                    "frame length " + segment.frameLength(offset) + " in a " + segment.declaredSize() + "-byte segment");
            case PAST_END -> damage(segment, offset, CorruptionReason.TORN_RECORD,
                    "the " + available + "-byte file ends inside the record");
            case BAD_CRC -> classifyBadCrc(segment, zeros, offset, isLast, available);
            case RECORD -> throw new IllegalStateException("a valid record does not end a scan");
        }
    }

    /**
     * A frame length of 0: the end of the log if everything after it is zero. That tail is usually
     * most of the last segment's preallocated size: only the parts the file system does not know to
     * be zeros are read ({@link FileZeroCheck}).
     */
    private void classifyEmpty(MappedSegment segment, FileZeroCheck zeros, int offset, boolean isLast, long available)
            {
        if (offset + HEADER_LENGTH <= available && !segment.isZero(offset, offset + HEADER_LENGTH)) {
            damage(segment, offset, CorruptionReason.BAD_LENGTH, "frame length 0 under a non-zero header");
        } else if (!zeros.isZero(offset, available)) {
            damage(segment, offset, CorruptionReason.ZEROED_REGION,
                    "zeros at " + offset + " followed by data up to " + segment.endOfData(offset));
        } else if (segment.isTruncated()) {
            damage(segment, offset, CorruptionReason.TRUNCATED_SEGMENT,
                    "file is " + segment.fileSize + " bytes, its header declares " + segment.declaredSize());
        } else if (!isLast) {
            damage(segment, offset, CorruptionReason.ZEROED_REGION,
                    "a segment followed by others ends without its end-of-segment marker");
        }
    }

    private void classifyBadCrc(MappedSegment segment, FileZeroCheck zeros, int offset, boolean isLast, long available)
            {
        int frameLength = segment.frameLength(offset);
        long frameEnd = offset + (long) RecordDescriptor.alignedLength(frameLength);
        String values = "stored crc 0x" + Integer.toHexString(segment.mapping.get(RecordDescriptor.INT_LE,
                offset + RecordDescriptor.CRC_OFFSET)) + ", computed 0x"
                + Integer.toHexString(segment.frameCrc(offset, frameLength)) + ", frame length " + frameLength;
        if (isLast && zeros.isZero(frameEnd, available)) {
            damage(segment, offset, CorruptionReason.TORN_RECORD, values + ", only zeros after it");
        } else {
            damage(segment, offset, CorruptionReason.BAD_CRC, values);
        }
    }

    private void damage(MappedSegment segment, int offset, CorruptionReason why, String what) {
        reason = why;
        detail = what;
        bytesCut = segment.endOfData(offset) - offset;
    }

    boolean isDamaged() {
        return reason != null;
    }
}
