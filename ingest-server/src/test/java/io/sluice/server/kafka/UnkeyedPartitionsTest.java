package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer that does not key by series (Telegraf's and the OpenTelemetry Collector's Kafka outputs
 * by default) spreads one series over 8 partitions; the consumers read them in fetch order, so a
 * series' samples arrive out of order for real. Inside the out-of-order window every produced sample
 * is stored exactly once, also across a restart in the middle, and the late ones are counted.
 */
class UnkeyedPartitionsTest {
    private static final int PARTITIONS = 8;
    @TempDir
    Path dir;

    @Test
    void everySampleOfSeriesSpreadOverPartitionsIsStoredOnce() {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("unkeyed", PARTITIONS);
            String group = SharedKafka.unique("unkeyed");
            TestPayloads payloads = new TestPayloads(PayloadFormat.PROMETHEUS_REMOTE_WRITE, 40, PARTITIONS, 77);
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.PROMETHEUS_REMOTE_WRITE))
                    .toBuilder().consumerThreads(2).build();
            for (int r = 0; r < 80; r++) {
                topics.send(topic, r % PARTITIONS, payloads.unkeyedRecord(10, 2));
            }
            topics.flush();
            long lateBefore;
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, PARTITIONS);
                lateBefore = sluice.count(Counter.SAMPLES_OUT_OF_ORDER);
                assertThat(sluice.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
            }
            for (int r = 80; r < 160; r++) {
                topics.send(topic, r % PARTITIONS, payloads.unkeyedRecord(10, 2));
            }
            topics.flush();
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, PARTITIONS);
                assertThat(sluice.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
                assertThat(lateBefore + sluice.count(Counter.SAMPLES_OUT_OF_ORDER)).as("samples that arrived late").isPositive();
                assertThat(sluice.count(Counter.SAMPLES_TOO_OLD) + sluice.count(Counter.SAMPLES_DUPLICATE)
                        + sluice.count(Counter.SAMPLES_DUPLICATE_TIMESTAMP)).isZero();
            }
        }
    }
}
