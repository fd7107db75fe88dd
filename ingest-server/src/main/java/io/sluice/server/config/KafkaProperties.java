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
    private static final Map<String, String> MANAGED = Map.of( // as IngestConfig refuses them
            "bootstrap.servers", "use kafka.bootstrap-servers",
            "group.id", "use kafka.group-id",
            "group.instance.id", "use kafka.group-instance-id",
            "enable.auto.commit", "Sluice commits offsets itself, only once every shard holds them durably",
            "key.deserializer", "Sluice reads record values as bytes",
            "value.deserializer", "Sluice reads record values as bytes",
            "key.serializer", "Sluice writes dead letters as bytes",
            "value.serializer", "Sluice writes dead letters as bytes",
            "partition.assignment.strategy", "Sluice uses cooperative-sticky assignment",
            "group.protocol", "Sluice uses the classic group protocol with cooperative-sticky assignment");

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
