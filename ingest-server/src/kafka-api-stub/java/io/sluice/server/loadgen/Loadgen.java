package io.sluice.server.loadgen;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public final class Loadgen {
    private Loadgen() {
    }

    public static LoadgenResult run(LoadgenConfig config) {
        throw new UnsupportedOperationException("built without io.sluice.server.loadgen (kafka-api-stub)");
    }
}
