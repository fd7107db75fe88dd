package io.sluice.server.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Checks {@code kafka.<property>} keys, which go to the Kafka clients verbatim (security, SASL, TLS,
 * fetch sizes). A name no Kafka client knows is an unknown key rather than a property Kafka would
 * ignore with a warning, and properties Sluice sets itself are refused with what to use instead.
 */
final class KafkaProperties {
    static final String PREFIX = "kafka.";
    private static final Set<String> KNOWN = new TreeSet<>();
    private static final Map<String, String> MANAGED = Map.ofEntries( // as IngestConfig refuses them
            Map.entry("bootstrap.servers", "use kafka.bootstrap-servers"),
            Map.entry("group.id", "use kafka.group-id"),
            Map.entry("group.instance.id", "use kafka.group-instance-id"),
            Map.entry("enable.auto.commit", "Sluice commits offsets itself, only once every shard holds them durably"),
            Map.entry("key.deserializer", "Sluice reads record values as bytes"),
            Map.entry("value.deserializer", "Sluice reads record values as bytes"),
            Map.entry("key.serializer", "Sluice writes dead letters as bytes"),
            Map.entry("value.serializer", "Sluice writes dead letters as bytes"),
            Map.entry("partition.assignment.strategy", "Sluice uses cooperative-sticky assignment (classic protocol)"),
            Map.entry("group.protocol", "use kafka.group-protocol"),
            Map.entry("session.timeout.ms", "use kafka.session-timeout"));

    static {
        KNOWN.addAll(ConsumerConfig.configNames());
        KNOWN.addAll(ProducerConfig.configNames());
        KNOWN.addAll(AdminClientConfig.configNames());
    }

    private KafkaProperties() {
    }

    /** The Kafka property a {@code kafka.*} setting passes through, or throws why it cannot. */
    static String propertyOf(Setting setting) throws ConfigException {
        String property = setting.key().substring(PREFIX.length());
        String managed = MANAGED.get(property);
        if (managed != null) {
            throw new ConfigException(setting.key() + " cannot be set (" + setting.source() + "): " + managed);
        }
        if (!KNOWN.contains(property)) {
            throw new ConfigException("unknown key '" + setting.key() + "' (" + setting.source()
                    + "): neither a Sluice key nor a Kafka client property"
                    + Suggestions.didYouMean(property, KNOWN));
        }
        return property;
    }
}
