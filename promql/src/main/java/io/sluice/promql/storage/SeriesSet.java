package io.sluice.promql.storage;

import io.sluice.promql.labels.Labels;
import java.util.List;

/** A cursor over selected series, in label order. Not thread-safe; closed by the engine. */
public interface SeriesSet extends AutoCloseable {
    /** Moves to the next series; false at the end. */
    boolean next();

    /** The current series' labels (including {@code __name__}). */
    Labels labels();

    /**
     * The current series' labels for a consumer that reads only those named in {@code names} (sorted,
     * distinct), e.g. {@code sum by (job)}: at least those the series has, so a store that converts labels
     * per series may convert only them (with empty names: none, {@link Labels#EMPTY}). By default all.
     */
    default Labels labels(List<String> names) {
        return labels();
    }

    /**
     * An iterator over the current series' samples in time order, reusing {@code reuse} when it is of
     * the implementation's own kind (one iterator per query, not one per series), else a new one.
     */
    SampleIterator iterator(SampleIterator reuse);

    @Override
    default void close() {
    }
}
