package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rules of xor.go the golden vectors do not reach, with the expected bytes derived by hand from the
 * rules (bits spelled out below), then checked both ways.
 */
class XorEncodingRulesTest {
    private static final String PREFIX = "000000000000000000e807"; // varint(0), 64 zero value bits, uvarint(1000)

    /**
     * Values 0, 1.0, 1.0 + 1 ulp. The third XOR is 1: 63 leading zeros, clamped to 31 because the
     * field has 5 bits, and its 0 trailing zeros do not fit the (2, 52) window, so a new one opens:
     * '0' dod, '1' '1' new window, '11111' leading 31, '100001' 33 significant bits, 32 zeros and '1'.
     */
    @Test
    void leadingZerosAreClampedTo31WhenANewWindowOpens() {
        long[] ts = {1000, 2000, 3000};
        long[] values = {0L, 0x3ff0000000000000L, 0x3ff0000000000001L};
        assertEncodesTo(ts, values, "0003d00f0000000000000000e807c457feff0800000004");
    }

    /**
     * bitRange is asymmetric: -(2^(n-1) - 1) <= dod <= 2^(n-1). Sample 2 has dod +2^(n-1), which
     * stays in the n-bit bucket; sample 3 has dod -2^(n-1), which needs the next bucket. Constant
     * values: every value code is '0'. For n = 14: '0' | '10' '10000000000000' | '0' |
     * '110' '11110000000000000' | '0'.
     */
    @ParameterizedTest(name = "{0}-bit bucket")
    @CsvSource({
        "14, 0004" + PREFIX + "5000378000",
        "17, 0004" + PREFIX + "680003bc0000",
        "20, 0004" + PREFIX + "7400003fffffffffffe00000",
    })
    void deltaOfDeltaBucketsAreAsymmetric(int bits, String expectedHex) {
        long half = 1L << (bits - 1);
        long[] ts = {0, 1000, 2000 + half, 3000 + half};
        assertEncodesTo(ts, new long[4], expectedHex);
    }

    private static void assertEncodesTo(long[] ts, long[] values, String expectedHex) {
        MemorySegment state = MemorySegment.ofArray(new long[XorStateDescriptor.SIZE / Long.BYTES]);
        MemorySegment chunk = MemorySegment.ofArray(new byte[256]);
        XorStateDescriptor.reset(state, 0);
        XorAppender appender = new XorAppender().wrap(state, 0, chunk, 0, 256);
        for (int i = 0; i < ts.length; i++) {
            assertThat(appender.append(ts[i], values[i])).isTrue();
        }
        byte[] bytes = chunk.asSlice(0, appender.byteLength()).toArray(ValueLayout.JAVA_BYTE);
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(expectedHex);

        XorIterator it = new XorIterator().reset(bytes);
        for (int i = 0; i < ts.length; i++) {
            assertThat(it.next()).isTrue();
            assertThat(it.timestampMs()).isEqualTo(ts[i]);
            assertThat(it.valueBits()).isEqualTo(values[i]);
        }
        assertThat(it.next()).isFalse();
        assertThat(it.hasError()).isFalse();
    }
}
