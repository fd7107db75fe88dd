package io.sluice.server.kafka;

import static io.sluice.server.format.PayloadFormat.INFLUX;
import static io.sluice.server.format.PayloadFormat.JSON;
import static io.sluice.server.format.PayloadFormat.OTLP;
import static io.sluice.server.format.PayloadFormat.PROMETHEUS_REMOTE_WRITE;
import static io.sluice.server.format.PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.server.format.AllocationMeter;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.SeriesTextSink;
import io.sluice.server.format.remotewrite.RemoteWriteV2Encoder;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The per-record choice of format from the Content-Type header, and the tallies of skipped content. */
class RecordFormatsTest {
    private static final String V2 = RemoteWriteV2Encoder.CONTENT_TYPE;

    @Test
    void theHeaderPicksTheRemoteWriteVersionWhateverItsSpelling() throws PayloadException {
        for (PayloadFormat topic : new PayloadFormat[] {PROMETHEUS_REMOTE_WRITE, PROMETHEUS_REMOTE_WRITE_V2}) {
            assertThat(RecordFormats.resolve(topic, new RecordHeaders())).as("no header: the topic decides").isSameAs(topic);
            for (String key : new String[] {"Content-Type", "content-type", "CONTENT-TYPE", "Content-type"}) {
                assertThat(RecordFormats.resolve(topic, headers(key, V2))).as(key).isSameAs(PROMETHEUS_REMOTE_WRITE_V2);
                assertThat(RecordFormats.resolve(topic, headers(key, "application/x-protobuf"))).isSameAs(PROMETHEUS_REMOTE_WRITE);
            }
            Headers other = headers("trace-id", "abc");
            assertThat(RecordFormats.resolve(topic, other)).as("other headers only").isSameAs(topic);
            Headers two = headers("content-type", "application/x-protobuf").add("Content-Type", V2.getBytes(StandardCharsets.US_ASCII));
            assertThat(RecordFormats.resolve(topic, two)).as("the last wins").isSameAs(PROMETHEUS_REMOTE_WRITE_V2);
        }
        for (PayloadFormat topic : new PayloadFormat[] {INFLUX, OTLP, JSON}) {
            assertThat(RecordFormats.resolve(topic, headers("Content-Type", V2))).as("not remote-write: header ignored")
                    .isSameAs(topic);
        }
    }

    @Test
    void anUnknownContentTypeIsRejected() {
        assertThatThrownBy(() -> RecordFormats.resolve(PROMETHEUS_REMOTE_WRITE, headers("Content-Type", "application/json")))
                .isInstanceOf(PayloadException.class).hasMessageContaining("application/json")
                .extracting(e -> ((PayloadException) e).reason().label()).isEqualTo("unsupported_content_type");
    }

    @Test
    void resolvingAllocatesNothingPerRecord() throws PayloadException {
        Headers v2 = headers("Content-Type", V2);
        Headers lower = headers("content-type", "application/x-protobuf;proto=prometheus.WriteRequest");
        Headers none = new RecordHeaders();
        long checksum = 0;
        for (int i = 0; i < 200_000; i++) { // warm-up
            checksum += resolveAll(v2, lower, none);
        }
        long before = AllocationMeter.allocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            checksum += resolveAll(v2, lower, none);
        }
        long allocated = AllocationMeter.allocatedBytes() - before;
        assertThat(checksum).isPositive();
        assertThat(allocated).as("bytes for 3,000,000 resolutions").isLessThan(3_000_000L / 10);
    }

    private static int resolveAll(Headers a, Headers b, Headers c) throws PayloadException {
        return RecordFormats.resolve(PROMETHEUS_REMOTE_WRITE, a).ordinal() + RecordFormats.resolve(PROMETHEUS_REMOTE_WRITE_V2, b).ordinal()
                + RecordFormats.resolve(PROMETHEUS_REMOTE_WRITE, c).ordinal();
    }

    @Test
    void skipsOfRoutedRecordsReachTheCounterOncePerPublish() throws PayloadException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            IngestMetrics metrics = new IngestMetrics(registry, () -> 0);
            RecordFormats formats = new RecordFormats(DecoderLimits.DEFAULTS);
            byte[] record = "m,t=a s=\"x\",v=1 1000000000\nnot line protocol\nm v=2 2000000000\n".getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 3; i++) {
                formats.decoder(INFLUX).decode(record, 0, record.length, 0, new SeriesTextSink());
                formats.tallySkips(INFLUX);
            }
            assertThat(registry.scrape()).contains("sluice_decode_skipped_total{format=\"influx\",reason=\"string_field\"} 0.0");
            formats.publish(metrics);
            formats.publish(metrics); // nothing new: nothing added
            String scrape = registry.scrape();
            assertThat(scrape).contains("sluice_decode_skipped_total{format=\"influx\",reason=\"string_field\"} 3.0",
                    "sluice_decode_skipped_total{format=\"influx\",reason=\"line_syntax\"} 3.0",
                    "sluice_decode_skipped_total{format=\"otlp\",reason=\"metric_delta_temporality\"} 0.0",
                    "sluice_decode_skipped_total{format=\"prometheus-remote-write\",reason=\"native_histogram\"} 0.0");
        } finally {
            registry.close();
        }
    }

    private static Headers headers(String key, String value) {
        return new RecordHeaders().add(key, value.getBytes(StandardCharsets.US_ASCII));
    }
}
