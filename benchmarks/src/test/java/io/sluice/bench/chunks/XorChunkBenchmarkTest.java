package io.sluice.bench.chunks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The benchmark measures what it claims: a real encode of the shape, a full decode of it. */
class XorChunkBenchmarkTest {
    @ParameterizedTest
    @ValueSource(strings = {"constant", "random-steps", "random-0-1", "regular-0-1"})
    void encodesAndIteratesTheShape(String shape) {
        XorChunkBenchmark benchmark = new XorChunkBenchmark();
        benchmark.shape = shape;
        benchmark.setUp();
        try {
            long[] ts = benchmark.timestampsMs();
            long[] values = benchmark.valueBits();
            long expectedChecksum = 0;
            for (int i = 0; i < XorChunkBenchmark.SAMPLES; i++) {
                expectedChecksum += ts[i] ^ values[i];
                assertThat(i == 0 || ts[i] - ts[i - 1] >= 14_950).isTrue();
            }
            assertThat(ts[0] - XorChunkBenchmark.START_MS).isBetween(14_950L, 15_050L);

            int length = benchmark.encode();
            assertThat(benchmark.encode()).as("encoding again from a reset state").isEqualTo(length);
            assertThat(benchmark.iterate()).isEqualTo(expectedChecksum);
            assertThat(benchmark.iterate()).isEqualTo(expectedChecksum);
            assertThat(benchmark.compressedBytesPerSample()).isEqualTo((double) length / XorChunkBenchmark.SAMPLES);
            if (shape.equals("constant")) {
                // Header, varint t and 64 value bits, a 2-byte delta and '0', then '0' '0' for 118 samples.
                assertThat(length).isEqualTo(2 + 6 + 8 + 2 + (1 + 118 * 2 + 7) / 8);
            } else {
                // Integer steps keep most mantissa bits; fractional steps change them (Prometheus: ~3.7 and ~6.8).
                double low = shape.equals("random-steps") ? 3.0 : 5.0;
                assertThat(benchmark.compressedBytesPerSample()).isBetween(low, low + 2.5);
            }
        } finally {
            benchmark.tearDown();
        }
    }
}
