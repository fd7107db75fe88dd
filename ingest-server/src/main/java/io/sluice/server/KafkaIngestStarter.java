package io.sluice.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.server.config.KafkaSettings;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.kafka.IngestConfig;
import io.sluice.server.kafka.KafkaIngest;

/** Starts {@link KafkaIngest} (the consumer threads of io.sluice.server.kafka) from the configuration. */
public final class KafkaIngestStarter implements Ingest.Starter {
    private final IngestConfig ingestConfig;

    public KafkaIngestStarter(SluiceConfig config) {
        this.ingestConfig = ingestConfig(config);
    }

    /** The consumers' part of the configuration. */
    public static IngestConfig ingestConfig(SluiceConfig config) {
        KafkaSettings kafka = config.kafka();
        return new IngestConfig(kafka.bootstrapServers(), kafka.groupId(), kafka.groupInstanceId(), kafka.consumerThreads(),
                kafka.formatByTopic(), kafka.clientProperties(), kafka.deadLetterTopic(), config.decoderLimits(),
                config.labelLimits(), kafka.commitIntervalMs(), kafka.pollTimeoutMs());
    }

    @Override
    public Ingest start(Head head, MeterRegistry registry) {
        KafkaIngest kafka = new KafkaIngest(ingestConfig, head, registry);
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
