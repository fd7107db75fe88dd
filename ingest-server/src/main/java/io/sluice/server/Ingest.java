package io.sluice.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;

/**
 * What the server needs of a running ingestion (Kafka consumers in production): whether it has
 * partitions, and an orderly stop. {@link #close()} stops fetching, hands every shard what it has
 * polled and commits what every shard holds durably; it returns when that is done.
 */
public interface Ingest extends AutoCloseable {
    /** True once partitions are assigned (part of readiness). Any thread. */
    boolean hasAssignment();

    @Override
    void close();

    /** Starts ingestion into a replayed head; metrics go to {@code registry}. */
    @FunctionalInterface
    interface Starter {
        Ingest start(Head head, MeterRegistry registry) throws Exception;
    }
}
