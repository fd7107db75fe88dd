package io.sluice.e2e;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer group's progress through a topic, read with the admin client: lag 0 means the group
 * committed every partition's end offset, and Sluice commits only what every shard synced to its WAL.
 */
final class ConsumerProgress {
    private final Admin admin;
    private final String topic;
    private final int partitions;
    private final String group;

    ConsumerProgress(Admin admin, String topic, int partitions, String group) {
        this.admin = admin;
        this.topic = topic;
        this.partitions = partitions;
        this.group = group;
    }

    /** Waits until the committed offsets reach the end of every partition (producing has ended). */
    void awaitCaughtUp(Duration timeout) {
        Map<TopicPartition, Long> end = endOffsets();
        Poll.until("consumer group " + group + " catching up to " + end, timeout,
                () -> lag(end) == 0, () -> "committed " + committed());
    }

    /** Waits until every partition's committed offset reaches {@code target}'s (producing may go on). */
    void awaitCommittedBeyond(Map<TopicPartition, Long> target, Duration timeout) {
        Poll.until("consumer group " + group + " committing up to " + target, timeout,
                () -> lag(target) == 0, () -> "committed " + committed());
    }

    /** Records not yet committed, summed over partitions. */
    long lag(Map<TopicPartition, Long> end) {
        Map<TopicPartition, Long> committed = committed();
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            lag += Math.max(0, e.getValue() - committed.getOrDefault(e.getKey(), 0L));
        }
        return lag;
    }

    Map<TopicPartition, Long> endOffsets() {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
                : get(admin.listOffsets(request).all()).entrySet()) {
            out.put(e.getKey(), e.getValue().offset());
        }
        return out;
    }

    Map<TopicPartition, Long> committed() {
        Map<TopicPartition, Long> out = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("admin request failed: " + e, e);
        }
    }
}
