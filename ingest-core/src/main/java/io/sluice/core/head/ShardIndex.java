package io.sluice.core.head;

import io.sluice.core.labels.LabelsView;
import io.sluice.core.labels.SymbolTable;

/**
 * A shard's label index: the symbol table of its label names and values and the postings that
 * map each (name, value) pair to the ids of the series that carry it. Written by the shard thread
 * when a series is created (never per sample); read by query threads.
 */
public final class ShardIndex implements AutoCloseable {
    private final SymbolTable symbols = new SymbolTable();
    private final LabelsView view = new LabelsView(); // shard thread only
    private int[] nameIds = new int[32];
    private int[] valueIds = new int[32];

    /** Indexes a new series by its canonical labels. Shard thread. */
    void add(int seriesId, byte[] labels, int offset, int length) {
        view.wrap(labels, offset, length);
        int n = view.count();
        if (n > nameIds.length) {
            nameIds = new int[n];
            valueIds = new int[n];
        }
        int i = 0;
        while (view.next()) {
            nameIds[i] = symbols.intern(labels, view.nameOffset(), view.nameLength());
            valueIds[i] = symbols.intern(labels, view.valueOffset(), view.valueLength());
            i++;
        }
    }

    /** The shard's symbols; any thread may read. */
    public SymbolTable symbols() {
        return symbols;
    }

    @Override
    public void close() {
        // On-heap structures: nothing to release; kept AutoCloseable for the off-heap postings to come.
    }
}
