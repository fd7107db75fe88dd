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
 */
public record KafkaSettings(String bootstrapServers, String groupId, String groupInstanceId, int consumerThreads,
                            Map<String, PayloadFormat> formatByTopic, Map<String, String> clientProperties,
                            String deadLetterTopic, long commitIntervalMs, long pollTimeoutMs,
                            boolean deadLetterSkippedLines, long groupLagIntervalMs) {
    // The defaults, in one place (ConfigKey shows them, IngestConfig.defaults uses them).
    public static final String DEFAULT_GROUP_ID = "sluice";
    public static final int DEFAULT_CONSUMER_THREADS = 1;
    public static final long DEFAULT_COMMIT_INTERVAL_MS = 100;
    public static final long DEFAULT_POLL_TIMEOUT_MS = 100;
    public static final long DEFAULT_GROUP_LAG_INTERVAL_MS = 5_000;

    public KafkaSettings {
        formatByTopic = Collections.unmodifiableMap(new LinkedHashMap<>(formatByTopic));
        clientProperties = Collections.unmodifiableMap(new TreeMap<>(clientProperties));
    }
}
