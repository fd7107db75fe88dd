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
        return builder(bootstrapServers, groupId, formatByTopic).build();
    }

    /** A builder holding the defaults for everything but where to connect and what to consume. */
    public static Builder builder(String bootstrapServers, String groupId, Map<String, PayloadFormat> formatByTopic) {
        return new Builder(bootstrapServers, groupId, formatByTopic);
    }

    /** A builder holding this configuration, to derive a changed one: {@code config.toBuilder().consumerThreads(2).build()}. */
    public Builder toBuilder() {
        return new Builder(bootstrapServers, groupId, formatByTopic)
                .groupInstanceId(groupInstanceId)
                .consumerThreads(consumerThreads)
                .kafkaProperties(kafkaProperties)
                .deadLetterTopic(deadLetterTopic)
                .limits(decoderLimits, labelLimits)
                .commitIntervalMs(commitIntervalMs)
                .pollTimeoutMs(pollTimeoutMs)
                .deadLetterSkippedLines(deadLetterSkippedLines)
                .groupLagIntervalMs(groupLagIntervalMs)
                .groupProtocol(groupProtocol)
                .sessionTimeoutMs(sessionTimeoutMs);
    }

    /** The consumed topics. */
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

    /**
     * Collects the fields of an {@link IngestConfig}, starting from the defaults of {@link KafkaSettings};
     * {@link #build} checks them all, as the constructor does.
     */
    public static final class Builder {
        private final String bootstrapServers;
        private final String groupId;
        private final Map<String, PayloadFormat> formatByTopic;
        private String groupInstanceId;
        private int consumerThreads = KafkaSettings.DEFAULT_CONSUMER_THREADS;
        private Map<String, String> kafkaProperties = Map.of();
        private String deadLetterTopic;
        private DecoderLimits decoderLimits = DecoderLimits.DEFAULTS;
        private LabelLimits labelLimits = LabelLimits.DEFAULT;
        private long commitIntervalMs = KafkaSettings.DEFAULT_COMMIT_INTERVAL_MS;
        private long pollTimeoutMs = KafkaSettings.DEFAULT_POLL_TIMEOUT_MS;
        private boolean deadLetterSkippedLines;
        private long groupLagIntervalMs = KafkaSettings.DEFAULT_GROUP_LAG_INTERVAL_MS;
        private GroupProtocol groupProtocol = GroupProtocol.CLASSIC;
        private long sessionTimeoutMs = KafkaSettings.DEFAULT_SESSION_TIMEOUT_MS;

        private Builder(String bootstrapServers, String groupId, Map<String, PayloadFormat> formatByTopic) {
            this.bootstrapServers = bootstrapServers;
            this.groupId = groupId;
            this.formatByTopic = formatByTopic;
        }

        /** Static membership; null = dynamic. */
        public Builder groupInstanceId(String id) {
            this.groupInstanceId = id;
            return this;
        }

        public Builder consumerThreads(int n) {
            this.consumerThreads = n;
            return this;
        }

        public Builder kafkaProperties(Map<String, String> properties) {
            this.kafkaProperties = properties;
            return this;
        }

        /** Null = no dead-letter topic. */
        public Builder deadLetterTopic(String topic) {
            this.deadLetterTopic = topic;
            return this;
        }

        public Builder limits(DecoderLimits decoder, LabelLimits labels) {
            this.decoderLimits = decoder;
            this.labelLimits = labels;
            return this;
        }

        public Builder commitIntervalMs(long ms) {
            this.commitIntervalMs = ms;
            return this;
        }

        public Builder pollTimeoutMs(long ms) {
            this.pollTimeoutMs = ms;
            return this;
        }

        public Builder deadLetterSkippedLines(boolean copy) {
            this.deadLetterSkippedLines = copy;
            return this;
        }

        public Builder groupLagIntervalMs(long ms) {
            this.groupLagIntervalMs = ms;
            return this;
        }

        public Builder groupProtocol(GroupProtocol protocol) {
            this.groupProtocol = protocol;
            return this;
        }

        public Builder sessionTimeoutMs(long ms) {
            this.sessionTimeoutMs = ms;
            return this;
        }

        /** The configuration; an {@link IllegalArgumentException} with a one-line message if a field is refused. */
        public IngestConfig build() {
            return new IngestConfig(bootstrapServers, groupId, groupInstanceId, consumerThreads, formatByTopic, kafkaProperties,
                    deadLetterTopic, decoderLimits, labelLimits, commitIntervalMs, pollTimeoutMs, deadLetterSkippedLines,
                    groupLagIntervalMs, groupProtocol, sessionTimeoutMs);
        }
    }
}
