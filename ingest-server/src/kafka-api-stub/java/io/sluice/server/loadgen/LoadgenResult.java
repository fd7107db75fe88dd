package io.sluice.server.loadgen;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public record LoadgenResult(long records, long samples, long series, long valueBytes, long elapsedNanos, boolean interrupted) {
    public String summary() {
        return toString();
    }
}
