package io.sluice.server.loadgen;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public record LoadgenResult(long samples, long records, long bytes, long elapsedNanos) {
}
