package io.sluice.server.cli;

import io.sluice.server.Ingest;
import io.sluice.server.KafkaIngestStarter;
import io.sluice.server.config.SluiceConfig;

/** Builds the Kafka ingest starter, turning a configuration the consumers refuse into a one-line error. */
final class IngestStarters {
    private IngestStarters() {
    }

    /** The starter, or null after printing why the consumers' configuration is refused. */
    static Ingest.Starter kafka(SluiceConfig config, CliContext context) {
        try {
            return new KafkaIngestStarter(config);
        } catch (IllegalArgumentException e) { // IngestConfig re-checks what ConfigLoader checked
            context.error("kafka configuration refused: " + e.getMessage());
            return null;
        }
    }
}
