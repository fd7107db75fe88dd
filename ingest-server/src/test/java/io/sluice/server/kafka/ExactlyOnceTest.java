package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * From a real broker into the head, each format: every produced sample is stored exactly once —
 * the full set compared (labels, timestamps, value bits including NaN payloads, the stale marker and
 * -0.0) — the committed offsets reach the end of every partition, and the meters say so.
 */
class ExactlyOnceTest {
    private static final int PARTITIONS = 3;
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = PayloadFormat.class, names = {"PROMETHEUS_REMOTE_WRITE", "SLUICE"}) // what the load generator writes
    void everyProducedSampleIsStoredExactlyOnce(PayloadFormat format) {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("exactly-once-" + format.configName(), PARTITIONS);
            String group = SharedKafka.unique("group");
            TestPayloads payloads = new TestPayloads(format, 600, PARTITIONS, 31 + format.ordinal());
            int records = 0;
            for (int r = 0; r < 90; r++) {
                topics.send(topic, r % PARTITIONS, payloads.record(r % PARTITIONS, 5 + r % 30, 1 + r % 6));
                records++;
            }
            topics.flush();

            IngestConfig config = TestTopics.config(group, Map.of(topic, format)).toBuilder().consumerThreads(2).build();
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, PARTITIONS);

                assertThat(sluice.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
                assertThat(sluice.count(Counter.SAMPLES_APPENDED)).isEqualTo(payloads.produced().size());
                assertThat(sluice.count(Counter.SAMPLES_DUPLICATE) + sluice.count(Counter.SAMPLES_TOO_OLD)
                        + sluice.count(Counter.SAMPLES_DUPLICATE_TIMESTAMP)).isZero();
                assertThat(sluice.ingest.hasAssignment()).isTrue();
                assertThat(sluice.counter("sluice.records.consumed")).isEqualTo(records);
                assertThat(sluice.counter("sluice.samples.consumed")).isEqualTo(payloads.produced().size());
                String scrape = sluice.scrape();
                assertThat(scrape).contains("sluice_records_consumed_total " + records + ".0",
                        "sluice_consumer_lag{partition=\"2\",topic=\"" + topic + "\"} 0.0",
                        "sluice_records_rejected_total{reason=\"bad_magic\"} 0.0",
                        "sluice_stage_seconds_count{stage=\"fetch\"}", "sluice_stage_seconds_count{stage=\"decode\"}",
                        "sluice_commit_latency_seconds_count", "sluice_partitions_paused 0.0");
                sluice.ingest.close();
                assertThat(sluice.scrape()).as("no stale lag gauges after the partitions are revoked")
                        .doesNotContain("sluice_consumer_lag{");
            }
        }
    }
}
