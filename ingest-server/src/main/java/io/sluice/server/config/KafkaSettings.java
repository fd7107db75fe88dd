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
 */
public record KafkaSettings(String bootstrapServers, String groupId, String groupInstanceId, int consumerThreads,
                            Map<String, PayloadFormat> formatByTopic, Map<String, String> clientProperties,
                            String deadLetterTopic, long commitIntervalMs, long pollTimeoutMs) {
    public KafkaSettings {
        formatByTopic = Collections.unmodifiableMap(new LinkedHashMap<>(formatByTopic));
        clientProperties = Collections.unmodifiableMap(new TreeMap<>(clientProperties));
    }
}
