package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WALs hold more than the group committed (a kill -9 between a WAL sync and its commit): the
 * restarted instance starts after what its WALs hold and commits that position even when no new
 * record ever arrives, so the group's lag goes to zero instead of staying at the records the dead
 * instance stored but did not commit. The group's commit is moved back by hand here to stand for
 * the missed commit.
 */
class CommitCatchUpTest {
    private static final int PARTITIONS = 2;
    @TempDir
    Path dir;

    @Test
    void aRestartCommitsWhatItsWalsHoldWithoutNewRecords() throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("catchup", PARTITIONS);
            String group = SharedKafka.unique("group");
            TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 200, PARTITIONS, 7);
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.SLUICE));
            try (PhasedProducer producer = new PhasedProducer(topics, topic, List.of(RestartTest.records(payloads, 40)))) {
                try (IngestInstance first = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                    producer.open(0);
                    producer.awaitProduced(0);
                    topics.awaitCommittedToEnd(group, topic, PARTITIONS);
                }
            }
            Map<TopicPartition, OffsetAndMetadata> rewound = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                rewound.put(new TopicPartition(topic, p), new OffsetAndMetadata(1));
            }
            topics.kafka.admin().alterConsumerGroupOffsets(group, rewound).all().get();
            assertThat(topics.committed(group).values()).containsOnly(1L);

            try (IngestInstance second = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, PARTITIONS); // no record is produced now
                assertThat(second.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
                assertThat(second.count(Counter.SAMPLES_ALREADY_APPLIED)).as("started after what the WALs hold").isZero();
            }
        }
    }
}
