package io.sluice.server.config;

import io.sluice.server.format.PayloadFormat;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code kafka.*} part of the configuration.
 *
 * @param groupInstanceId  static membership id, or null
 * @param formatByTopic    topics to consume and the payload format of each (insertion order kept)
 * @param clientProperties {@code kafka.<property>} settings, passed to the Kafka clients verbatim
 * @param deadLetterTopic  where undecodable records go, or null for nowhere
 * @param deadLetterSkippedLines also copy there stored records that lost lines (influx)
 * @param groupLagIntervalMs how often the group's lag over every partition is read; 0 = never
 * @param groupProtocol    the consumer group protocol
 * @param sessionTimeoutMs the classic protocol's session timeout (the consumer protocol's is the broker's)
 */
public record KafkaSettings(String bootstrapServers, String groupId, String groupInstanceId, int consumerThreads,
                            Map<String, PayloadFormat> formatByTopic, Map<String, String> clientProperties,
                            String deadLetterTopic, long commitIntervalMs, long pollTimeoutMs,
                            boolean deadLetterSkippedLines, long groupLagIntervalMs,
                            GroupProtocol groupProtocol, long sessionTimeoutMs) {
    // The defaults, in one place (ConfigKey shows them, IngestConfig.defaults uses them).
    public static final String DEFAULT_GROUP_ID = "sluice";
    public static final int DEFAULT_CONSUMER_THREADS = 1;
    public static final long DEFAULT_COMMIT_INTERVAL_MS = 100;
    public static final long DEFAULT_POLL_TIMEOUT_MS = 100;
    public static final long DEFAULT_GROUP_LAG_INTERVAL_MS = 5_000;
    /**
     * A member that stops heartbeating (SIGKILL, a hung host) is dropped from the group after this
     * long; its partitions are consumed by nobody until then (Kafka's default is 45 s).
     */
    public static final long DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    /** The classic protocol's heartbeat interval (a third of the session when that is shorter). */
    public static final long HEARTBEAT_INTERVAL_MS = 1_000;
    /** Session timeouts accepted (a broker also refuses less than its group.min.session.timeout.ms, 6 s by default). */
    public static final long MIN_SESSION_TIMEOUT_MS = 1_000;
    public static final long MAX_SESSION_TIMEOUT_MS = 1_800_000;

    /**
     * Kafka's consumer group protocols: {@code classic} (client-side assignment, cooperative-sticky here,
     * session timeout set by the client) and {@code consumer} (KIP-848: the broker assigns and sets
     * session timeout and heartbeat interval).
     */
    public enum GroupProtocol {
        CLASSIC, CONSUMER;

        /** The value of {@code kafka.group-protocol} and of Kafka's {@code group.protocol}. */
        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public KafkaSettings {
        formatByTopic = Collections.unmodifiableMap(new LinkedHashMap<>(formatByTopic));
        clientProperties = Collections.unmodifiableMap(new TreeMap<>(clientProperties));
    }
}
