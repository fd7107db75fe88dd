package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.config.KafkaSettings.GroupProtocol;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two instances in one group (two heads, separate data directories); one leaves mid-stream and
 * rejoins from its directory. The union of what they store is exactly the produced set; neither
 * stores a sample twice; with graceful hand-overs no sample is stored by both either; lag gauges
 * follow the assignment. Under both group protocols: the classic one (cooperative-sticky, assigned by
 * the clients) and the consumer one (KIP-848, assigned by the broker), whose revocations run the same
 * listener (hand over, make durable, commit).
 */
class RebalanceTest {
    private static final int PARTITIONS = 4;
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(GroupProtocol.class)
    void oneInstanceLeavesAndRejoinsMidStream(GroupProtocol protocol) throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("rebalance", PARTITIONS);
            String group = SharedKafka.unique("group");
            TestPayloads payloads = new TestPayloads(PayloadFormat.PROMETHEUS_REMOTE_WRITE, 800, PARTITIONS, 61);
            List<List<PhasedProducer.Rec>> phases = List.of(RestartTest.records(payloads, 160),
                    RestartTest.records(payloads, 80), RestartTest.records(payloads, 120));
            int total = payloads.produced().size();
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.PROMETHEUS_REMOTE_WRITE))
                    .toBuilder().groupProtocol(protocol).build();
            Path dirA = dir.resolve("a");
            Path dirB = dir.resolve("b");

            try (IngestInstance a = new IngestInstance(dirA, IngestInstance.headOptions(dirA), config);
                 PhasedProducer producer = new PhasedProducer(topics, topic, phases)) {
                IngestInstance b = new IngestInstance(dirB, IngestInstance.headOptions(dirB), config);
                long appendedByB;
                try {
                    Await.until("both instances to own partitions", () -> a.ingest.hasAssignment() && b.ingest.hasAssignment()
                            && a.ingest.assignedPartitions() + b.ingest.assignedPartitions() == PARTITIONS);
                    producer.open(0);
                    Await.until("both instances to store samples",
                            () -> a.count(Counter.SAMPLES_APPENDED) > 0 && b.count(Counter.SAMPLES_APPENDED) > 0);
                } finally {
                    b.close(); // leaves the group mid-stream (phase 0 still arriving)
                }
                appendedByB = b.count(Counter.SAMPLES_APPENDED);
                assertThat(b.scrape()).doesNotContain("sluice_consumer_lag{");

                Await.until("A to take over every partition", () -> a.ingest.assignedPartitions() == PARTITIONS);
                // The baseline is read before phase 1 is produced: phase 1's records can only be stored
                // after it, so "more" cannot have happened already (A may drain phase 0's rest at once).
                long appendedByA = a.count(Counter.SAMPLES_APPENDED);
                producer.open(1);
                Await.until("A to store more after the take-over", () -> a.count(Counter.SAMPLES_APPENDED) > appendedByA);

                try (IngestInstance b2 = new IngestInstance(dirB, IngestInstance.headOptions(dirB), config)) {
                    Await.until("B to rejoin and get partitions back",
                            () -> b2.ingest.hasAssignment() && a.ingest.assignedPartitions() < PARTITIONS);
                    producer.open(2);
                    producer.awaitProduced(2);
                    topics.awaitCommittedToEnd(group, topic, PARTITIONS);

                    List<String> storedA = a.stored();
                    List<String> storedB = b2.stored();
                    assertThat(new HashSet<>(storedA)).as("A stores nothing twice").hasSameSizeAs(storedA);
                    assertThat(new HashSet<>(storedB)).as("B stores nothing twice").hasSameSizeAs(storedB);
                    Set<String> union = new HashSet<>(storedA);
                    union.addAll(storedB);
                    assertThat(union).containsExactlyInAnyOrderElementsOf(payloads.produced());
                    assertThat(a.count(Counter.SAMPLES_DUPLICATE) + b2.count(Counter.SAMPLES_DUPLICATE)).isZero();
                    assertThat(a.count(Counter.SAMPLES_APPENDED) + appendedByB + b2.count(Counter.SAMPLES_APPENDED))
                            .as("graceful hand-overs: no sample appended by two instances").isEqualTo(total);
                    assertThat(lagGauges(a.scrape())).isEqualTo(a.ingest.assignedPartitions());
                    assertThat(lagGauges(b2.scrape())).isEqualTo(b2.ingest.assignedPartitions());
                }
            }
        }
    }

    private static long lagGauges(String scrape) {
        return scrape.lines().filter(l -> l.startsWith("sluice_consumer_lag{")).count();
    }
}
