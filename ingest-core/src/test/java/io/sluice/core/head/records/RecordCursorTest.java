package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The cursor copies each payload into its own buffer and reads it with array accesses (one-byte fast
 * path, 8-byte big-endian loads): these check it against the writers ({@link Varint}, big-endian
 * bytes) at every length, at the very end of a payload, and after a longer payload left its bytes
 * in the buffer.
 */
class RecordCursorTest {
    private final MemorySegment mapping = Arena.ofAuto().allocate(1 << 16);
    private final RecordCursor cursor = new RecordCursor();

    @Test
    void varintsOfEveryLengthRoundTripAtAnyOffset() {
        long seed = 11;
        SplittableRandom random = new SplittableRandom(seed);
        long[] values = new long[2_000];
        for (int i = 0; i < values.length; i++) {
            int bits = random.nextInt(65); // 0..64 significant bits: every encoded length from 1 to 10 bytes
            values[i] = bits == 0 ? 0 : random.nextLong() >>> (64 - bits);
        }
        long offset = 13; // not aligned: the payload may start anywhere in a mapping
        long end = offset;
        for (long v : values) {
            end = Varint.writeSigned(mapping, end, v);
        }
        cursor.wrap(mapping, offset, end - offset);
        for (int i = 0; i < values.length; i++) {
            assertThat(cursor.readSigned()).as("seed %d value %d", seed, i).isEqualTo(values[i]);
        }
        assertThat(cursor.isMalformed()).isFalse();
        assertThat(cursor.hasRemaining()).isFalse();
    }

    @Test
    void bigEndianReadsEndExactlyAtThePayloadEndAndIgnoreStaleBytes() {
        // A long payload of 0xFF first, so the buffer holds non-zero bytes past the short one that follows.
        mapping.asSlice(0, 4_096).fill((byte) 0xFF);
        cursor.wrap(mapping, 0, 4_096);
        for (int n = 1; n <= 8; n++) {
            for (int i = 0; i < n; i++) {
                mapping.set(ValueLayout.JAVA_BYTE, 100 + i, (byte) (0x10 + i));
            }
            cursor.wrap(mapping, 100, n);
            long expected = 0;
            for (int i = 0; i < n; i++) {
                expected = (expected << 8) | (0x10 + i);
            }
            assertThat(cursor.readBigEndian(n)).as("%d bytes", n).isEqualTo(expected);
            assertThat(cursor.isMalformed()).isFalse();
            assertThat(cursor.hasRemaining()).isFalse();
        }
    }

    @Test
    void readsPastTheEndAreMalformedNotThrown() {
        long end = Varint.writeUnsigned(mapping, 0, 1L << 40); // 6 bytes
        cursor.wrap(mapping, 0, end - 1); // cut inside the varint
        assertThat(cursor.readUnsigned()).isZero();
        assertThat(cursor.isMalformed()).isTrue();

        cursor.wrap(mapping, 0, 3);
        assertThat(cursor.isMalformed()).isFalse();
        assertThat(cursor.readBigEndian(4)).isZero();
        assertThat(cursor.isMalformed()).isTrue();

        cursor.wrap(mapping, 0, 0);
        assertThat(cursor.readUnsignedByte()).isZero();
        assertThat(cursor.isMalformed()).isTrue();

        mapping.asSlice(0, 11).fill((byte) 0x80); // 11 continuation bytes: longer than any varint
        cursor.wrap(mapping, 0, 11);
        assertThat(cursor.readUnsigned()).isZero();
        assertThat(cursor.isMalformed()).isTrue();
    }

    @Test
    void segmentAndPositionDescribeTheCopiedPayload() {
        byte[] topic = "metrics-topic".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long at = Varint.writeUnsigned(mapping, 500, topic.length);
        MemorySegment.copy(topic, 0, mapping, ValueLayout.JAVA_BYTE, at, topic.length);
        cursor.wrap(mapping, 500, at - 500 + topic.length);
        int length = cursor.readBoundedInt(1_000);
        long position = cursor.position();
        byte[] read = cursor.segment().asSlice(position, length).toArray(ValueLayout.JAVA_BYTE);
        assertThat(read).isEqualTo(topic);
    }

    @Test
    void payloadsLargerThanTheBufferGrowIt() {
        int length = 100_000;
        MemorySegment big = Arena.ofAuto().allocate(length);
        big.set(ValueLayout.JAVA_BYTE, length - 1, (byte) 0x7F);
        cursor.wrap(big, 0, length);
        cursor.skip(length - 1);
        assertThat(cursor.readUnsigned()).isEqualTo(0x7F);
        assertThat(cursor.isMalformed()).isFalse();
    }
}
