package io.sluice.server.kafka;

import io.sluice.core.labels.LabelLimits;
import io.sluice.server.config.KafkaSettings;
import io.sluice.server.config.KafkaSettings.GroupProtocol;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Kafka-side configuration of one Sluice instance; the process fills it from YAML, flags and the
 * environment. Every check happens here, in the constructor, with a one-line message naming the
 * field, so a bad configuration is reported before any thread starts.
 *
 * @param bootstrapServers  {@code host:port[,host:port...]} of the cluster
 * @param groupId           the consumer group all instances of a deployment share
 * @param groupInstanceId   static membership ({@code group.instance.id}), suffixed {@code -<thread>} per
 *                          consumer thread; null = dynamic membership
 * @param consumerThreads   consumer threads, each its own {@code KafkaConsumer} in the group
 * @param formatByTopic     the topics to consume and the payload format of each
 * @param kafkaProperties   Kafka client properties passed through verbatim (security, SASL, TLS, fetch
 *                          sizes, {@code auto.offset.reset}...); the ones Sluice manages are refused
 * @param deadLetterTopic   where undecodable records are copied with the error in their headers; null = none
 * @param decoderLimits     record-size limits of the decoders
 * @param labelLimits       labels per series, name and value lengths
 * @param commitIntervalMs  the least time between two commits of a consumer thread (offsets are committed
 *                          as soon as a WAL sync made them durable in every shard)
 * @param pollTimeoutMs     the longest a consumer waits in {@code poll} for records
 * @param deadLetterSkippedLines also copy to the dead-letter topic a stored record that lost lines
 *                          (influx), with the number lost in a header
 * @param groupLagIntervalMs how often the group's lag and unowned partitions are read ({@link GroupLagMonitor}); 0 = never
 * @param groupProtocol     the consumer group protocol: {@code classic} or {@code consumer} (KIP-848)
 * @param sessionTimeoutMs  the classic protocol's session timeout (a heartbeat every second); with the
 *                          consumer protocol the broker's group configuration sets both and this is unused
 */
public record IngestConfig(
        String bootstrapServers, String groupId, String groupInstanceId,
        int consumerThreads, Map<String, PayloadFormat> formatByTopic, Map<String, String> kafkaProperties,
        String deadLetterTopic, DecoderLimits decoderLimits, LabelLimits labelLimits,
        long commitIntervalMs, long pollTimeoutMs, boolean deadLetterSkippedLines, long groupLagIntervalMs,
        GroupProtocol groupProtocol, long sessionTimeoutMs) {

    public static final int MAX_CONSUMER_THREADS = 256;

    /**
     * Client properties Sluice sets itself: exactly-once needs manual commits of what the shards made
     * durable, byte-array values decoded in place, and cooperative rebalancing (a revocation hands over
     * only the partitions that move). Each maps to the reason given when a user sets it.
     */
    static final Map<String, String> MANAGED_PROPERTIES = Map.of(
            "bootstrap.servers", "set bootstrapServers instead",
            "group.id", "set groupId instead",
            "group.instance.id", "set groupInstanceId instead",
            "enable.auto.commit", "Sluice commits only offsets every shard made durable (exactly-once)",
            "key.deserializer", "Sluice reads record values as bytes",
            "value.deserializer", "Sluice reads record values as bytes",
            "partition.assignment.strategy", "Sluice uses cooperative-sticky assignment (classic protocol)",
            "group.protocol", "set groupProtocol instead",
            "session.timeout.ms", "set sessionTimeoutMs instead");

    /** Client properties only one protocol accepts (Kafka refuses them with the other), and why. */
    private static final Map<String, String> CLASSIC_ONLY_PROPERTIES = Map.of(
            "heartbeat.interval.ms", "with the consumer group protocol the broker sets it (group config "
                    + "consumer.heartbeat.interval.ms)");
    private static final Map<String, String> CONSUMER_ONLY_PROPERTIES = Map.of(
            "group.remote.assignor", "it names a broker-side assignor of the consumer group protocol");

    public IngestConfig {
        requireText("bootstrapServers", bootstrapServers);
        for (String server : bootstrapServers.split(",", -1)) {
            if (!server.strip().matches("(\\[[0-9a-fA-F:.]+\\]|[^:\\s\\[\\]]+):\\d{1,5}")) {
                throw new IllegalArgumentException("bootstrapServers: '" + server.strip() + "' is not host:port");
            }
        }
        requireText("groupId", groupId);
        if (groupInstanceId != null) {
            requireText("groupInstanceId", groupInstanceId);
        }
        if (consumerThreads < 1 || consumerThreads > MAX_CONSUMER_THREADS) {
            throw new IllegalArgumentException("consumerThreads must be 1.." + MAX_CONSUMER_THREADS + ", was " + consumerThreads);
        }
        formatByTopic = checkTopics(formatByTopic);
        kafkaProperties = checkProperties(kafkaProperties);
        if (deadLetterTopic != null) {
            requireText("deadLetterTopic", deadLetterTopic);
            if (formatByTopic.containsKey(deadLetterTopic)) {
                throw new IllegalArgumentException("deadLetterTopic '" + deadLetterTopic
                        + "' is also consumed: rejected records would come back for ever");
            }
        }
        if (deadLetterSkippedLines && deadLetterTopic == null) {
            throw new IllegalArgumentException("deadLetterSkippedLines needs a deadLetterTopic");
        }
        if (decoderLimits == null) {
            throw new IllegalArgumentException("decoderLimits is missing");
        }
        if (labelLimits == null) {
            throw new IllegalArgumentException("labelLimits is missing");
        }
        if (commitIntervalMs < 10 || commitIntervalMs > 3_600_000) {
            throw new IllegalArgumentException("commitIntervalMs must be 10..3600000, was " + commitIntervalMs);
        }
        if (groupLagIntervalMs != 0 && (groupLagIntervalMs < 1_000 || groupLagIntervalMs > 3_600_000)) {
            throw new IllegalArgumentException("groupLagIntervalMs must be 0 (off) or 1000..3600000, was " + groupLagIntervalMs);
        }
        if (pollTimeoutMs < 1 || pollTimeoutMs > 60_000) {
            throw new IllegalArgumentException("pollTimeoutMs must be 1..60000, was " + pollTimeoutMs);
        }
        if (groupProtocol == null) {
            throw new IllegalArgumentException("groupProtocol is missing");
        }
        if (sessionTimeoutMs < KafkaSettings.MIN_SESSION_TIMEOUT_MS || sessionTimeoutMs > KafkaSettings.MAX_SESSION_TIMEOUT_MS) {
            throw new IllegalArgumentException("sessionTimeoutMs must be " + KafkaSettings.MIN_SESSION_TIMEOUT_MS + ".."
                    + KafkaSettings.MAX_SESSION_TIMEOUT_MS + ", was " + sessionTimeoutMs);
        }
        Map<String, String> otherProtocolOnly = groupProtocol == GroupProtocol.CLASSIC ? CONSUMER_ONLY_PROPERTIES
                : CLASSIC_ONLY_PROPERTIES;
        for (String key : kafkaProperties.keySet()) {
            String why = otherProtocolOnly.get(key);
            if (why != null) {
                throw new IllegalArgumentException("kafkaProperties: '" + key + "' cannot be set with the "
                        + groupProtocol.configName() + " group protocol: " + why);
            }
        }
    }

    /** Defaults for everything but where to connect and what to consume. */
    public static IngestConfig defaults(String bootstrapServers, String groupId, Map<String, PayloadFormat> formatByTopic) {
        return new IngestConfig(bootstrapServers, groupId, null, KafkaSettings.DEFAULT_CONSUMER_THREADS, formatByTopic, Map.of(),
                null, DecoderLimits.DEFAULTS, LabelLimits.DEFAULT, KafkaSettings.DEFAULT_COMMIT_INTERVAL_MS,
                KafkaSettings.DEFAULT_POLL_TIMEOUT_MS, false, KafkaSettings.DEFAULT_GROUP_LAG_INTERVAL_MS,
                GroupProtocol.CLASSIC, KafkaSettings.DEFAULT_SESSION_TIMEOUT_MS);
    }

    public IngestConfig withConsumerThreads(int n) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, n, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withGroupInstanceId(String id) {
        return new IngestConfig(bootstrapServers, groupId, id, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withKafkaProperties(Map<String, String> properties) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, properties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withDeadLetterTopic(String topic) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                topic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withDeadLetterSkippedLines(boolean copy) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, copy, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withLimits(DecoderLimits decoder, LabelLimits labels) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoder, labels, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withCommitIntervalMs(long ms) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, ms, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withGroupLagIntervalMs(long ms) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, ms,
                groupProtocol, sessionTimeoutMs);
    }

    public IngestConfig withGroupProtocol(GroupProtocol protocol) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                protocol, sessionTimeoutMs);
    }

    public IngestConfig withSessionTimeoutMs(long ms) {
        return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines, groupLagIntervalMs,
                groupProtocol, ms);
    }

    /** The consumed topics. */
    public Set<String> topics() {
        return formatByTopic.keySet();
    }

    private static Map<String, PayloadFormat> checkTopics(Map<String, PayloadFormat> formatByTopic) {
        if (formatByTopic == null || formatByTopic.isEmpty()) {
            throw new IllegalArgumentException("formatByTopic: no topic to consume");
        }
        Map<String, PayloadFormat> copy = new LinkedHashMap<>();
        formatByTopic.forEach((topic, format) -> {
            if (topic == null || !topic.matches("[a-zA-Z0-9._-]{1,249}")) {
                throw new IllegalArgumentException("formatByTopic: '" + topic
                        + "' is not a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -)");
            }
            if (format == null) {
                throw new IllegalArgumentException("formatByTopic: topic '" + topic + "' has no format");
            }
            copy.put(topic, format);
        });
        return Collections.unmodifiableMap(copy);
    }

    private static Map<String, String> checkProperties(Map<String, String> properties) {
        if (properties == null) {
            return Map.of();
        }
        Map<String, String> copy = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("kafkaProperties: a property has no name");
            }
            String why = MANAGED_PROPERTIES.get(key);
            if (why != null) {
                throw new IllegalArgumentException("kafkaProperties: '" + key + "' cannot be set: " + why);
            }
            if (value == null) {
                throw new IllegalArgumentException("kafkaProperties: '" + key + "' has no value");
            }
            copy.put(key, value);
        });
        return Collections.unmodifiableMap(copy);
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is missing");
        }
    }
}
