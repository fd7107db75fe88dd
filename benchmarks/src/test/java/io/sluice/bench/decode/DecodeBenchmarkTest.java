package io.sluice.bench.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.PayloadException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decode benchmark computes the right answer: every series, label byte and sample of the record. */
class DecodeBenchmarkTest {
    private static final NodeExporterPayloads PAYLOADS = new NodeExporterPayloads(42);

    @ParameterizedTest
    @ValueSource(strings = {"prometheus-remote-write", "sluice", "sluice-deltas", "sluice-crc32c"})
    void eachFormatDecodesTheWholeRecordIntoTheSink(String format) throws PayloadException {
        DecodeBenchmark benchmark = new DecodeBenchmark();
        benchmark.format = format;
        benchmark.setUp();

        long checksum = benchmark.decode();
        assertThat(benchmark.decode()).as("repeatable").isEqualTo(checksum);

        DecodeCountingSink sink = benchmark.sink();
        assertThat(sink.series()).isEqualTo(NodeExporterPayloads.SERIES);
        assertThat(sink.samples()).isEqualTo(NodeExporterPayloads.SAMPLES);
        assertThat(checksum).isEqualTo(PAYLOADS.sampleChecksum());
        long expectedLabelBytes = format.startsWith("sluice") ? PAYLOADS.canonicalLabelBytes() : PAYLOADS.labelBytes();
        assertThat(sink.labelBytes()).isEqualTo(expectedLabelBytes);
        assertThat(benchmark.recordBytes()).isPositive();
    }
}
