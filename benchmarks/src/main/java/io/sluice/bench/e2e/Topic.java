package io.sluice.bench.e2e;

import io.sluice.tools.kafka.TopicLeaders;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** The run's topic on any broker (embedded or not), created fresh, with its end offsets on demand. Main thread. */
final class Topic implements AutoCloseable {
    private final String bootstrapServers;
    private final String name;
    private final int partitions;
    private final Admin admin;

    private Topic(String bootstrapServers, String name, int partitions) {
        this.bootstrapServers = bootstrapServers;
        this.name = name;
        this.partitions = partitions;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    static Topic create(String bootstrapServers, String name, int partitions) {
        Topic topic = new Topic(bootstrapServers, name, partitions);
        try {
            topic.admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
            TopicLeaders.await(topic.admin, name, partitions, Duration.ofSeconds(60)); // else the first batches can fail
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            topic.close();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (IllegalStateException e) {
            topic.close();
            throw e;
        } catch (ExecutionException e) {
            topic.close();
            throw new IllegalStateException("cannot create topic " + name + " on " + bootstrapServers + ": " + e.getCause().getMessage(), e);
        }
        return topic;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    String name() {
        return name;
    }

    /** Partition -> end offset (the next offset to be written). */
    Map<Integer, Long> endOffsets() throws InterruptedException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(name, p), OffsetSpec.latest());
        }
        Map<Integer, Long> out = new HashMap<>();
        try {
            admin.listOffsets(request).all().get().forEach((tp, info) -> out.put(tp.partition(), info.offset()));
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot list the offsets of " + name + ": " + e.getCause().getMessage(), e);
        }
        return out;
    }

    @Override
    public void close() {
        admin.close();
    }
}
