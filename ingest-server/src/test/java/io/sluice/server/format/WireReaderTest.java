package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Varints at their boundaries, written by ByteWriter and read back by WireReader. */
class WireReaderTest {
    private static final long SEED = 0x7A21L;

    private static long roundTrip(long value) throws PayloadException {
        ByteWriter out = new ByteWriter(4);
        out.writeVarint(value);
        assertThat(out.length()).as("varintSize(%d)", value).isEqualTo(ByteWriter.varintSize(value));
        WireReader in = new WireReader();
        in.wrap(out.buffer(), 0, out.length(), "test");
        long read = in.readVarint("v");
        assertThat(in.hasRemaining()).isFalse();
        return read;
    }

    @Test
    void varintsRoundTripAtEveryBoundary() throws PayloadException {
        for (int bits = 0; bits < 64; bits++) {
            for (long v : new long[] {1L << bits, (1L << bits) - 1, -(1L << bits)}) {
                assertThat(roundTrip(v)).isEqualTo(v);
            }
        }
        Random random = new Random(SEED);
        for (int i = 0; i < 10_000; i++) {
            long v = random.nextLong() >>> random.nextInt(64);
            assertThat(roundTrip(v)).as("seed %x", SEED).isEqualTo(v);
        }
        assertThat(ByteWriter.varintSize(-1)).isEqualTo(10);
        assertThat(ByteWriter.varintSize(127)).isEqualTo(1);
        assertThat(ByteWriter.varintSize(128)).isEqualTo(2);
    }

    @Test
    void readsStopAtTheLimitNotAtTheArrayEnd() throws PayloadException {
        byte[] buf = {5, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        WireReader in = new WireReader();
        in.wrap(buf, 1, 3, "region");
        assertThatThrownBy(() -> in.readIntLE("word"))
                .isInstanceOfSatisfying(PayloadException.class, e -> {
                    assertThat(e.reason()).isEqualTo(PayloadException.Reason.TRUNCATED);
                    assertThat(e.position()).isZero();
                    assertThat(e.getMessage()).contains("word needs 4 bytes, 3 left");
                });
        int outer = in.pushLimit(1);
        assertThat(in.readU8("b")).isEqualTo(1);
        assertThatThrownBy(() -> in.readU8("b")).isInstanceOf(PayloadException.class);
        in.popLimit(outer);
        assertThat(in.readU8("b")).isEqualTo(2);
        byte[] cut = Arrays.copyOf(new byte[] {(byte) 0x80, (byte) 0x80}, 2);
        in.wrap(cut, 0, 2, "region");
        assertThatThrownBy(() -> in.readVarint("v"))
                .isInstanceOfSatisfying(PayloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(PayloadException.Reason.TRUNCATED));
    }
}
