package io.sluice.server.kafka;

import java.nio.file.Path;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public final class EmbeddedKafka implements AutoCloseable {
    private EmbeddedKafka() {
    }

    public static EmbeddedKafka start(Path dir) throws java.io.IOException {
        throw new UnsupportedOperationException("built without io.sluice.server.kafka (kafka-api-stub)");
    }

    public String bootstrapServers() {
        throw new UnsupportedOperationException();
    }

    public void createTopic(String name, int partitions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
