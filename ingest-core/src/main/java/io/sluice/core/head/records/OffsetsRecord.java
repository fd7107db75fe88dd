package io.sluice.core.head.records;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The OFFSETS record: after the samples of a batch, for each Kafka partition the batch covered,
 * the highest offset whose samples this shard has applied (its watermark).
 *
 * <pre>
 *  payload := entry*
 *  entry   := topicLength:uvarint  topic:utf8[topicLength]  partition:uvarint  offset:svarint
 * </pre>
 * Topic names are spelled out (not ids) so a WAL stays readable whatever the process assigned
 * before; an entry is ~20 bytes once per batch per partition, negligible beside the samples.
 */
public final class OffsetsRecord {
    /** Kafka caps topic names at 249 characters; anything longer in a WAL is damage. */
    public static final int MAX_TOPIC_BYTES = 249 * 4;

    private OffsetsRecord() {
    }

    public static int maxEntryBytes(int topicBytes) {
        return Varint.MAX_INT_BYTES + topicBytes + Varint.MAX_INT_BYTES + Varint.MAX_LONG_BYTES;
    }

    /** Writes one entry; returns the offset after it. */
    public static long write(MemorySegment target, long offset, byte[] topicUtf8, int partition, long kafkaOffset) {
        long p = Varint.writeUnsigned(target, offset, topicUtf8.length);
        MemorySegment.copy(topicUtf8, 0, target, ValueLayout.JAVA_BYTE, p, topicUtf8.length);
        p = Varint.writeUnsigned(target, p + topicUtf8.length, partition);
        return Varint.writeSigned(target, p, kafkaOffset);
    }

    /** Iterates entries; reusable. The topic is exposed as bytes; {@link #topic()} allocates (replay only). */
    public static final class Decoder {
        private final RecordCursor cursor = new RecordCursor();
        private long topicOffset;
        private int topicLength;
        private int partition;
        private long offset;

        public void wrap(MemorySegment segment, long offset, int length) {
            cursor.wrap(segment, offset, length);
        }

        public boolean next() {
            if (!cursor.hasRemaining()) {
                return false;
            }
            topicLength = cursor.readBoundedInt(MAX_TOPIC_BYTES);
            topicOffset = cursor.position();
            cursor.skip(topicLength);
            partition = cursor.readBoundedInt(Integer.MAX_VALUE);
            offset = cursor.readSigned();
            return !cursor.isMalformed();
        }

        public boolean isMalformed() {
            return cursor.isMalformed();
        }

        /** Whether the entry's topic is exactly {@code topicUtf8} (no allocation: replay resolves repeated topics with it). */
        public boolean topicEquals(byte[] topicUtf8) {
            return topicUtf8.length == topicLength && MemorySegment.mismatch(cursor.segment(), topicOffset, topicOffset + topicLength,
                    MemorySegment.ofArray(topicUtf8), 0, topicLength) == -1;
        }

        public String topic() {
            byte[] bytes = cursor.segment().asSlice(topicOffset, topicLength).toArray(ValueLayout.JAVA_BYTE);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        public int partition() {
            return partition;
        }

        public long offset() {
            return offset;
        }
    }
}
