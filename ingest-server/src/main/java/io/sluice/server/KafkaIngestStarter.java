package io.sluice.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.server.config.ConfigException;
import io.sluice.server.config.KafkaSettings;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.kafka.IngestConfig;
import io.sluice.server.kafka.KafkaIngest;
import java.nio.file.Path;

/**
 * Starts {@link KafkaIngest} (the consumer threads of io.sluice.server.kafka) from the configuration.
 *
 * <p>Group membership ({@code kafka.group-instance-id}): unset, the consumers are static members named
 * after the data directory ({@link KafkaIngest#staticMemberId}), so a restart after kill -9 takes its
 * partitions back at once (with dynamic membership it waits for the dead member's session to expire:
 * under Kafka's 45 s default the restart's `/-/ready` came after 44.6 s instead of 4.5 s);
 * {@value #DYNAMIC_MEMBERSHIP} asks for dynamic membership; any other value is the static id itself. A
 * member killed for good holds its partitions for the session timeout either way
 * ({@code kafka.session-timeout}, or the broker's with the consumer protocol).
 */
public final class KafkaIngestStarter implements Ingest.Starter {
    /** The {@code kafka.group-instance-id} value that turns static membership off. */
    public static final String DYNAMIC_MEMBERSHIP = "none";

    private final IngestConfig ingestConfig;

    /**
     * The starter for {@code config}; a configuration the consumers refuse (IngestConfig re-checks what
     * ConfigLoader checked) is a one-line {@link ConfigException}.
     */
    public KafkaIngestStarter(SluiceConfig config) throws ConfigException {
        try {
            this.ingestConfig = ingestConfig(config);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("kafka configuration refused: " + e.getMessage());
        }
    }

    /** The consumers' part of the configuration. */
    public static IngestConfig ingestConfig(SluiceConfig config) {
        KafkaSettings kafka = config.kafka();
        return IngestConfig.builder(kafka.bootstrapServers(), kafka.groupId(), kafka.formatByTopic())
                .groupInstanceId(kafka.groupInstanceId())
                .consumerThreads(kafka.consumerThreads())
                .kafkaProperties(kafka.clientProperties())
                .deadLetterTopic(kafka.deadLetterTopic())
                .limits(config.decoderLimits(), config.labelLimits())
                .commitIntervalMs(kafka.commitIntervalMs())
                .pollTimeoutMs(kafka.pollTimeoutMs())
                .deadLetterSkippedLines(kafka.deadLetterSkippedLines())
                .groupLagIntervalMs(kafka.groupLagIntervalMs())
                .groupProtocol(kafka.groupProtocol())
                .sessionTimeoutMs(kafka.sessionTimeoutMs())
                .build();
    }

    /** Resolves {@code kafka.group-instance-id} as the class comment says. */
    static IngestConfig withMembership(IngestConfig config, Path dataDirectory) {
        String id = config.groupInstanceId();
        if (id == null) {
            return config.toBuilder().groupInstanceId(KafkaIngest.staticMemberId(dataDirectory)).build();
        }
        return id.equals(DYNAMIC_MEMBERSHIP) ? config.toBuilder().groupInstanceId(null).build() : config;
    }

    @Override
    public Ingest start(Head head, MeterRegistry registry) {
        KafkaIngest kafka = new KafkaIngest(withMembership(ingestConfig, head.options().dataDirectory()), head, registry);
        try {
            kafka.start();
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return new Ingest() {
            @Override
            public boolean hasAssignment() {
                return kafka.hasAssignment();
            }

            @Override
            public void close() {
                kafka.close();
            }
        };
    }
}
