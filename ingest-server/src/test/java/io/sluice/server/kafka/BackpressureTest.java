package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny shard queues (2 batches of 4 KiB per shard) behind a topic filled faster than the shards
 * apply it: the consumer pauses its partitions and resumes them, the queues never exceed their
 * bound, and everything is stored.
 */
class BackpressureTest {
    private static final int PARTITIONS = 2;
    @TempDir
    Path dir;

    @Test
    void fullQueuesPauseAndResumePartitionsAndEverythingIsStored() throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("backpressure", PARTITIONS);
            String group = SharedKafka.unique("group");
            TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 400, PARTITIONS, 71);
            for (int r = 0; r < 400; r++) {
                // ~3 KiB a record: each takes most of a 4 KiB batch, so the consumer needs a batch per record.
                topics.send(topic, r % PARTITIONS, payloads.record(r % PARTITIONS, 4, 40));
            }
            topics.flush();

            HeadOptions tiny = IngestInstance.headOptions(dir).withPerShard(s -> s.withQueue(2, 4096));
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.SLUICE));
            try (IngestInstance sluice = new IngestInstance(dir, tiny, config)) {
                AtomicInteger maxQueueDepth = new AtomicInteger();
                Await.until("everything consumed", Await.LONG, () -> {
                    for (int s = 0; s < sluice.head.shardCount(); s++) {
                        maxQueueDepth.accumulateAndGet(sluice.head.shard(s).queueDepth(), Math::max);
                    }
                    return sluice.count(Counter.SAMPLES_APPENDED) == payloads.produced().size();
                }, () -> sluice.count(Counter.SAMPLES_APPENDED) + " of " + payloads.produced().size() + " stored");
                topics.awaitCommittedToEnd(group, topic, PARTITIONS);

                assertThat(sluice.counter("sluice.partition.pauses")).as("partitions were paused").isPositive();
                assertThat(sluice.ingest.pausedPartitions()).as("and resumed").isZero();
                assertThat(maxQueueDepth.get()).isLessThanOrEqualTo(2);
                assertThat(sluice.counter("sluice.records.rejected", "reason", "too_large")).isZero();
                assertThat(sluice.stored()).containsExactlyInAnyOrderElementsOf(payloads.produced());
                assertThat(sluice.registry.get("sluice.stage").tag("stage", "queue_wait").timer().count()).isPositive();
            }
        }
    }
}
