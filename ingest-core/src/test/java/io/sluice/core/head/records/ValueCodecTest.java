package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ValueCodecTest {
    private static final long STALE_NAN = 0x7ff0000000000002L;
    private final MemorySegment buffer = Arena.ofAuto().allocate(64);
    private final RecordCursor cursor = new RecordCursor();

    private long roundTrip(long bits, long previous) {
        long end = ValueCodec.write(buffer, 0, bits, previous);
        assertThat(end).isBetween(1L, (long) ValueCodec.MAX_BYTES);
        cursor.wrap(buffer, 0, end);
        long decoded = ValueCodec.read(cursor, previous);
        assertThat(cursor.isMalformed()).isFalse();
        assertThat(cursor.remaining()).as("consumed exactly what was written").isZero();
        return decoded;
    }

    private int size(double value, double previous) {
        return (int) ValueCodec.write(buffer, 0, Double.doubleToRawLongBits(value), Double.doubleToRawLongBits(previous));
    }

    @Test
    void specialValuesSurviveBitExactlyAgainstAnyPrevious() {
        long[] specials = {STALE_NAN, 0x7ff8000000000001L, 0xfff8000000000000L, Double.doubleToRawLongBits(-0.0), 0L,
            Double.doubleToRawLongBits(Double.POSITIVE_INFINITY), Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
            Double.doubleToRawLongBits(Double.MIN_VALUE), Double.doubleToRawLongBits(Double.MAX_VALUE), 1L, -1L,
            Double.doubleToRawLongBits(0.1), Double.doubleToRawLongBits(1e300), Double.doubleToRawLongBits(-12.75)};
        for (long bits : specials) {
            for (long previous : specials) {
                assertThat(roundTrip(bits, previous)).as("%x after %x", bits, previous).isEqualTo(bits);
            }
        }
    }

    @Test
    void randomBitsAndDecimalsRoundTrip() {
        long seed = 20261122L;
        SplittableRandom random = new SplittableRandom(seed);
        long previous = 0;
        for (int i = 0; i < 200_000; i++) {
            long bits = switch (i % 4) {
                case 0 -> random.nextLong();
                case 1 -> Double.doubleToRawLongBits(Math.round(random.nextDouble(-1e6, 1e6) * 100) / 100.0);
                case 2 -> Double.doubleToRawLongBits(random.nextInt(1000) / 8.0);
                default -> previous ^ (1L << random.nextInt(64));
            };
            assertThat(roundTrip(bits, previous)).as("seed %d, i %d", seed, i).isEqualTo(bits);
            previous = bits;
        }
    }

    @Test
    void commonShapesAreShort() {
        assertThat(size(42.0, 42.0)).as("unchanged").isEqualTo(1);
        assertThat(size(1234.56, 1233.91)).as("two decimals").isLessThanOrEqualTo(4);
        assertThat(size(0.93, 0.87)).as("small decimal").isLessThanOrEqualTo(3);
        assertThat(size(1_000_000, 999_000)).as("integer counter").isLessThanOrEqualTo(4);
        assertThat(size(-0.0, 0.0)).as("-0.0 flips only the sign bit").isEqualTo(2);
    }

    @Test
    void malformedControlBytesAreReportedNotThrown() {
        byte[][] bad = {{(byte) 0x09}, {(byte) 0x80 | 10, 0}, {(byte) 0x45, 1, 2, 3, 4, 5}, {(byte) 0x08, 1, 2}, {}};
        for (byte[] bytes : bad) {
            MemorySegment s = MemorySegment.ofArray(bytes);
            cursor.wrap(s, 0, bytes.length);
            ValueCodec.read(cursor, 0);
            assertThat(cursor.isMalformed()).as("bytes %s", java.util.Arrays.toString(bytes)).isTrue();
        }
    }
}
