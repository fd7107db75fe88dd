package io.sluice.core.head.records;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The SERIES record: one or more new series of a shard.
 *
 * <pre>
 *  payload := entry*
 *  entry   := seriesId:uvarint  labelsLength:uvarint  labels:byte[labelsLength]
 * </pre>
 * {@code labels} is the series' canonical label encoding (docs/format/labels.md).
 */
public final class SeriesRecord {
    private SeriesRecord() {
    }

    /** Worst-case size of one entry. */
    public static int maxEntryBytes(int labelsLength) {
        return Varint.MAX_INT_BYTES * 2 + labelsLength;
    }

    /** Writes one entry; returns the offset after it. */
    public static long write(MemorySegment target, long offset, int seriesId, MemorySegment labels, long labelsOffset, int labelsLength) {
        long p = Varint.writeUnsigned(target, offset, seriesId);
        p = Varint.writeUnsigned(target, p, labelsLength);
        MemorySegment.copy(labels, labelsOffset, target, p, labelsLength);
        return p + labelsLength;
    }

    /** Writes one entry from a heap array; returns the offset after it. */
    public static long write(MemorySegment target, long offset, int seriesId, byte[] labels, int labelsOffset, int labelsLength) {
        long p = Varint.writeUnsigned(target, offset, seriesId);
        p = Varint.writeUnsigned(target, p, labelsLength);
        MemorySegment.copy(labels, labelsOffset, target, ValueLayout.JAVA_BYTE, p, labelsLength);
        return p + labelsLength;
    }

    /** Iterates the entries of one SERIES record; reusable. */
    public static final class Decoder {
        private final RecordCursor cursor = new RecordCursor();
        private int seriesId;
        private long labelsOffset;
        private int labelsLength;

        public void wrap(MemorySegment segment, long offset, int length) {
            cursor.wrap(segment, offset, length);
        }

        /** Next entry, or false at the end or when malformed ({@link #isMalformed()}). */
        public boolean next() {
            if (!cursor.hasRemaining()) {
                return false;
            }
            seriesId = cursor.readBoundedInt(Integer.MAX_VALUE - 1);
            labelsLength = cursor.readBoundedInt(Integer.MAX_VALUE);
            labelsOffset = cursor.position();
            cursor.skip(labelsLength);
            return !cursor.isMalformed();
        }

        public boolean isMalformed() {
            return cursor.isMalformed();
        }

        public int seriesId() {
            return seriesId;
        }

        public MemorySegment segment() {
            return cursor.segment();
        }

        public long labelsOffset() {
            return labelsOffset;
        }

        public int labelsLength() {
            return labelsLength;
        }
    }
}
