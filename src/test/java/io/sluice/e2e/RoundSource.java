package io.sluice.e2e;

/** A data set produced in rounds: one record per partition per round ({@link SampleProducer}). */
interface RoundSource {
    int partitions();

    /** The record of {@code partition} in {@code round}. Not thread-safe. */
    byte[] record(int partition, int round);
}
