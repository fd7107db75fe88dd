package io.sluice.tools.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/** Waiting for a new topic to be writable on any broker (the embedded one, or a benchmark's). */
public final class TopicLeaders {
    private TopicLeaders() {
    }

    /**
     * Waits until every partition answers ListOffsets, which only the partition's leader replica does:
     * the metadata names a leader slightly before the broker acts as one, and a producer writing in
     * that window gets NOT_LEADER_OR_FOLLOWER, which can leave an idempotent producer retrying out of
     * sequence until its delivery timeout. Throws IllegalStateException after {@code timeout}.
     */
    public static void await(Admin admin, String topic, int partitions, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                TopicDescription d = admin.describeTopics(Set.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
                if (d.partitions().size() >= partitions && d.partitions().stream().allMatch(p -> p.leader() != null)) {
                    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
                    for (int p = 0; p < partitions; p++) {
                        request.put(new TopicPartition(topic, p), OffsetSpec.latest());
                    }
                    admin.listOffsets(request).all().get(10, TimeUnit.SECONDS);
                    return;
                }
            } catch (ExecutionException | TimeoutException e) {
                // not yet in the metadata, or no leader acting yet: retry until the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
            }
            try {
                Thread.sleep(50); // between polls of the broker's state: no need to hammer it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
            }
        }
        throw new IllegalStateException("topic " + topic + " has no leader for every partition after " + timeout.toSeconds() + " s");
    }
}
