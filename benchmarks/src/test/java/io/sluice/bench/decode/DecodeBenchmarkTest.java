package io.sluice.bench.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.PayloadException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The decode benchmark computes the right answer: every series, label byte and sample of the record. */
class DecodeBenchmarkTest {
    private static final NodeExporterPayloads PAYLOADS = new NodeExporterPayloads(42);

    @ParameterizedTest
    @ValueSource(strings = {"prometheus-remote-write", "sluice", "sluice-deltas", "sluice-crc32c", "prometheus-remote-write-v2",
        "influx", "otlp", "json"})
    void eachFormatDecodesTheWholeRecordIntoTheSink(String format) throws PayloadException {
        DecodeBenchmark benchmark = new DecodeBenchmark();
        benchmark.format = format;
        benchmark.setUp();

        long checksum = benchmark.decode();
        assertThat(benchmark.decode()).as("repeatable").isEqualTo(checksum);

        DecodeCountingSink sink = benchmark.sink();
        boolean seriesPerSample = format.equals("influx") || format.equals("otlp") || format.equals("json");
        assertThat(sink.series()).isEqualTo(seriesPerSample ? NodeExporterPayloads.SAMPLES : NodeExporterPayloads.SERIES);
        assertThat(sink.samples()).isEqualTo(NodeExporterPayloads.SAMPLES);
        assertThat(checksum).isEqualTo(format.equals("otlp") ? PAYLOADS.sampleChecksumByFamily() : PAYLOADS.sampleChecksum());
        long expectedLabelBytes = switch (format) {
            case "sluice", "sluice-deltas", "sluice-crc32c" -> PAYLOADS.canonicalLabelBytes();
            case "influx" -> PAYLOADS.labelBytesPerSample("_value".length());
            case "otlp" -> PAYLOADS.labelBytesPerSample(("otel_scope_name" + NodeExporterPayloads.OTLP_SCOPE_NAME
                    + "otel_scope_version" + NodeExporterPayloads.OTLP_SCOPE_VERSION).length());
            case "json" -> PAYLOADS.labelBytesPerSample(0);
            default -> PAYLOADS.labelBytes();
        };
        assertThat(sink.labelBytes()).isEqualTo(expectedLabelBytes);
        assertThat(benchmark.recordBytes()).isPositive();
    }
}
