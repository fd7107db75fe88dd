package io.sluice.server.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The demo's lag figure: records produced to a topic and not yet committed by the group, summed over
 * partitions (committed offsets trail what is applied by at most kafka.commit-interval). Owned by
 * the demo's progress thread.
 */
final class DemoLag implements AutoCloseable {
    private static final long TIMEOUT_MS = 800;
    private final Admin admin;
    private final String topic;
    private final String groupId;

    DemoLag(String bootstrapServers, String topic, String groupId) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "sluice-demo-lag"));
        this.topic = topic;
        this.groupId = groupId;
    }

    /** Records behind over all partitions, or -1 if the broker did not answer in time. */
    long records() {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p : admin.describeTopics(java.util.List.of(topic)).allTopicNames().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .get(topic).partitions().stream().map(info -> info.partition()).toList()) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long lag = 0;
            for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
                    : admin.listOffsets(latest).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                lag += e.getValue().offset() - (c == null ? 0 : c.offset());
            }
            return lag;
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(2));
    }
}
