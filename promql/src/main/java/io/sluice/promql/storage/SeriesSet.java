package io.sluice.promql.storage;

import io.sluice.promql.labels.Labels;

/** A cursor over selected series, in label order. Not thread-safe; closed by the engine. */
public interface SeriesSet extends AutoCloseable {
    /** Moves to the next series; false at the end. */
    boolean next();

    /** The current series' labels (including {@code __name__}). */
    Labels labels();

    /**
     * An iterator over the current series' samples in time order, reusing {@code reuse} when it is of
     * the implementation's own kind (one iterator per query, not one per series), else a new one.
     */
    SampleIterator iterator(SampleIterator reuse);

    @Override
    default void close() {
    }
}
