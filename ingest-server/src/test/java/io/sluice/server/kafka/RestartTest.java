package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful restart in the middle of a stream: the service is closed while records keep arriving,
 * reopened from the same data directory, and goes on. Nothing is lost (the final set is exactly the
 * produced one) and nothing is stored twice (appends over both runs add up to the produced count; no
 * duplicate; the reopened head is not even offered an already applied record).
 */
class RestartTest {
    private static final int PARTITIONS = 2;
    @TempDir
    Path dir;

    @Test
    void restartMidStreamLosesNothingAndStoresNothingTwice() throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("restart", PARTITIONS);
            String group = SharedKafka.unique("group");
            TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 400, PARTITIONS, 51);
            List<List<PhasedProducer.Rec>> phases = List.of(records(payloads, 160), records(payloads, 80));
            int total = payloads.produced().size();
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.SLUICE));

            long appendedBefore;
            try (PhasedProducer producer = new PhasedProducer(topics, topic, phases)) {
                IngestInstance first = new IngestInstance(dir, IngestInstance.headOptions(dir), config);
                producer.open(0);
                try {
                    Await.until("a quarter of the samples stored", () -> first.count(Counter.SAMPLES_APPENDED) >= total / 4);
                } finally {
                    first.close(); // graceful, while phase 0 may still be arriving
                }
                appendedBefore = first.count(Counter.SAMPLES_APPENDED);
                assertThat(first.count(Counter.SAMPLES_DUPLICATE)).isZero();
                assertThat(appendedBefore).as("closed mid-stream").isLessThan(total);
                assertThat(first.count(Counter.CHECKPOINTS_WRITTEN)).as("every shard checkpoints on close").isEqualTo(2);

                producer.open(1);
                try (IngestInstance second = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                    producer.awaitProduced(1);
                    topics.awaitCommittedToEnd(group, topic, PARTITIONS);
                    assertThat(second.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
                    assertThat(appendedBefore + second.count(Counter.SAMPLES_APPENDED)).isEqualTo(total);
                    // A graceful close checkpoints: the second run loads the samples instead of replaying them.
                    assertThat(second.count(Counter.REPLAYED_SAMPLES)).isZero();
                    assertThat(second.count(Counter.SAMPLES_DUPLICATE)).isZero();
                    assertThat(second.count(Counter.SAMPLES_ALREADY_APPLIED))
                            .as("the commit covered everything made durable: nothing is re-read").isZero();
                }
            }
        }
    }

    static List<PhasedProducer.Rec> records(TestPayloads payloads, int count) {
        List<PhasedProducer.Rec> out = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            int partition = r % payloads.partitions();
            out.add(new PhasedProducer.Rec(partition, payloads.record(partition, 4 + r % 20, 1 + r % 5)));
        }
        return out;
    }
}
