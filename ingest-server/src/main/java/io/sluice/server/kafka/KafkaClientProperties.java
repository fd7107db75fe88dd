package io.sluice.server.kafka;

import io.sluice.server.config.KafkaSettings;
import io.sluice.server.config.KafkaSettings.GroupProtocol;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Builds the client properties of the consumers and the dead-letter producer from an
 * {@link IngestConfig}: the user's pass-through properties, then the ones Sluice manages (which the
 * config refuses as user input). A pass-through property meant for the other kind of client is left
 * out, so Kafka does not warn about unused configuration.
 */
final class KafkaClientProperties {
    private static final Set<String> CONSUMER_KEYS = ConsumerConfig.configNames();
    private static final Set<String> PRODUCER_KEYS = ProducerConfig.configNames();

    private KafkaClientProperties() {
    }

    /** Properties of consumer thread {@code thread} (0-based). */
    static Map<String, Object> consumer(IngestConfig config, int thread) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-" + config.groupId() + "-" + thread);
        config.kafkaProperties().forEach((k, v) -> {
            if (CONSUMER_KEYS.contains(k) || !PRODUCER_KEYS.contains(k)) {
                p.put(k, v);
            }
        });
        if (config.kafkaProperties().containsKey(ConsumerConfig.CLIENT_ID_CONFIG)) {
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.kafkaProperties().get(ConsumerConfig.CLIENT_ID_CONFIG) + "-" + thread);
        }
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        if (config.groupInstanceId() != null) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.groupInstanceId() + "-" + thread);
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, config.groupProtocol().configName());
        if (config.groupProtocol() == GroupProtocol.CLASSIC) {
            // The consumer protocol assigns on the broker and takes session and heartbeat from the group's
            // configuration: Kafka refuses these three with it.
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Long.toString(config.sessionTimeoutMs()));
            p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Long.toString(heartbeatIntervalMs(config)));
        }
        return p;
    }

    /**
     * The classic protocol's heartbeat interval: 1 s, or a third of a shorter session (Kafka's ceiling).
     * After a member's session expires, the others learn of the rebalance with their next heartbeat, so
     * this adds to the failover time (Kafka's 3 s default measured 1-2 s more than 1 s).
     */
    static long heartbeatIntervalMs(IngestConfig config) {
        return Math.min(KafkaSettings.HEARTBEAT_INTERVAL_MS, config.sessionTimeoutMs() / 3);
    }

    /** Properties of the dead-letter producer: idempotent, acknowledged by all replicas. */
    static Map<String, Object> deadLetterProducer(IngestConfig config) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-" + config.groupId() + "-dead-letters");
        // A send waits at most this long for the topic's metadata or buffer space: it runs on a consumer thread.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        config.kafkaProperties().forEach((k, v) -> {
            if (PRODUCER_KEYS.contains(k) || !CONSUMER_KEYS.contains(k)) {
                p.put(k, v);
            }
        });
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return p;
    }
}
