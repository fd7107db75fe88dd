package io.sluice.server.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public final class KafkaIngest implements AutoCloseable {
    public KafkaIngest(IngestConfig config, Head head, MeterRegistry registry) {
    }

    public void start() {
        throw new UnsupportedOperationException("built without io.sluice.server.kafka (kafka-api-stub)");
    }

    public boolean hasAssignment() {
        return false;
    }

    @Override
    public void close() {
    }
}
