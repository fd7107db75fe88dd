package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats;
import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.remotewrite.RemoteWriteV2Encoder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every input format end to end: records produced to a real broker, consumed by {@link KafkaIngest}
 * into a real head, read back and compared sample by sample (value bits, NaN included) with what
 * Prometheus would keep of them ({@link FormatCases}). Remote-write 2.0 arrives three ways: on a topic
 * configured for it, on a 1.0 topic with its Content-Type header, and (refused) on a 1.0 topic without.
 * What is stored is read twice: from the head (value bits, NaN payloads included) and through the HTTP
 * API as a user would (/api/v1/export sample by sample, where every NaN reads "NaN", and /api/v1/query).
 */
class FormatsEndToEndTest {
    private static final String V2 = RemoteWriteV2Encoder.CONTENT_TYPE;
    /** The five input formats of the issue (sluice's native batch has its own tests). */
    private static final List<PayloadFormat> FIVE = List.of(PayloadFormat.PROMETHEUS_REMOTE_WRITE,
            PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, PayloadFormat.INFLUX, PayloadFormat.OTLP, PayloadFormat.JSON);
    @TempDir
    Path dir;

    @Test
    void everyFormatStoresWhatPrometheusWouldKeep() {
        try (TestTopics topics = new TestTopics()) {
            Map<String, PayloadFormat> formats = new HashMap<>();
            Map<PayloadFormat, String> topicOf = new HashMap<>();
            for (PayloadFormat format : FIVE) {
                String topic = topics.create("e2e-" + format.configName(), 1);
                formats.put(topic, format);
                topicOf.put(format, topic);
            }
            Map<String, List<String>> expected = new HashMap<>();
            Map<String, Long> dropped = new HashMap<>();
            for (PayloadFormat format : FIVE) {
                List<EncodedSeries> series = FormatCases.series(format, format.configName());
                expected.put(format.configName(), FormatCases.expected(format, series, dropped));
                for (byte[] value : FormatCases.encode(format, series)) {
                    topics.sendAndWait(topicOf.get(format), 0, value);
                }
            }
            // 2.0 on a 1.0 topic, said by its header: stored; 1.0 on a 2.0 topic, said by its header: stored.
            List<EncodedSeries> v2ByHeader = FormatCases.series(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, "v2-by-header");
            expected.put("v2-by-header", FormatCases.expected(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, v2ByHeader, dropped));
            topics.sendAndWait(topicOf.get(PayloadFormat.PROMETHEUS_REMOTE_WRITE), 0,
                    FormatCases.encode(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, v2ByHeader).getFirst(), V2);
            List<EncodedSeries> v1ByHeader = FormatCases.series(PayloadFormat.PROMETHEUS_REMOTE_WRITE, "v1-by-header");
            expected.put("v1-by-header", FormatCases.expected(PayloadFormat.PROMETHEUS_REMOTE_WRITE, v1ByHeader, dropped));
            topics.sendAndWait(topicOf.get(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2), 0,
                    FormatCases.encode(PayloadFormat.PROMETHEUS_REMOTE_WRITE, v1ByHeader).getFirst(), "application/x-protobuf");
            // Refused, counted, nothing stored: 2.0 bytes on a 1.0 topic without a header; an unknown Content-Type.
            List<EncodedSeries> v2Unsaid = FormatCases.series(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, "v2-unsaid");
            topics.sendAndWait(topicOf.get(PayloadFormat.PROMETHEUS_REMOTE_WRITE), 0,
                    FormatCases.encode(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, v2Unsaid).getFirst());
            List<EncodedSeries> unknownType = FormatCases.series(PayloadFormat.PROMETHEUS_REMOTE_WRITE, "unknown-type");
            topics.sendAndWait(topicOf.get(PayloadFormat.PROMETHEUS_REMOTE_WRITE), 0,
                    FormatCases.encode(PayloadFormat.PROMETHEUS_REMOTE_WRITE, unknownType).getFirst(), "application/json");

            String group = SharedKafka.unique("e2e");
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), TestTopics.config(group, formats))) {
                for (String topic : formats.keySet()) {
                    topics.awaitCommittedToEnd(group, topic, 1);
                }
                List<String> cases = new ArrayList<>(expected.keySet());
                cases.addAll(List.of("v2-unsaid", "unknown-type"));
                for (String fmt : cases) {
                    assertThat(FormatCases.stored(sluice.head, fmt)).as("stored of %s", fmt)
                            .containsExactlyElementsOf(expected.getOrDefault(fmt, List.of()).stream().sorted().toList());
                }
                try (HttpReadBack api = new HttpReadBack(sluice.head, sluice.registry)) {
                    for (String fmt : cases) {
                        List<String> expectedExport = expected.getOrDefault(fmt, List.of()).stream().map(HttpReadBack::exportForm)
                                .sorted().toList();
                        assertThat(api.export("{fmt=\"" + fmt + "\"}").stream().sorted().toList()).as("export of %s", fmt)
                                .isEqualTo(expectedExport);
                        if (expected.containsKey(fmt)) {
                            StringBuilder many = new StringBuilder("e2e_many{fmt=\"" + fmt + "\"");
                            for (int i = 0; i < 30; i++) {
                                many.append(String.format(",l%02d=\"v%d\"", i, i));
                            }
                            assertThat(api.instant("e2e_many{fmt=\"" + fmt + "\"}", FormatCases.T + 60_000)).as("query of %s", fmt)
                                    .containsExactly(many.append("} 7").toString());
                            assertThat(api.instant("{fmt=\"" + fmt + "\",kept=\"x\",empty=\"\"}", FormatCases.T))
                                    .as("an empty label value matches an absent label").containsExactly("e2e_empty{fmt=\"" + fmt
                                            + "\",kept=\"x\"} 8");
                        }
                    }
                }
                assertThat(sluice.count(ShardStats.Counter.SAMPLES_TOO_OLD)).isEqualTo(dropped.getOrDefault("too_old", 0L));
                assertThat(sluice.count(ShardStats.Counter.SAMPLES_DUPLICATE)).isEqualTo(dropped.get("duplicate"));
                assertThat(sluice.count(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP)).isEqualTo(dropped.get("duplicate_timestamp"));
                assertThat(sluice.counter("sluice.records.rejected", "reason", "unsupported_version")).isEqualTo(1.0);
                assertThat(sluice.counter("sluice.records.rejected", "reason", "unsupported_content_type")).isEqualTo(1.0);
                assertThat(sluice.scrape()).contains("sluice_records_rejected_total{reason=\"unsupported_version\"} 1.0");
            }
        }
    }
}
