package io.sluice.server.kafka;

/** STUB of the kafka branch's test API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public final class SharedKafka {
    private SharedKafka() {
    }

    public static EmbeddedKafka broker() {
        throw new UnsupportedOperationException("built without io.sluice.server.kafka (kafka-api-stub)");
    }

    public static String unique(String prefix) {
        return prefix;
    }
}
