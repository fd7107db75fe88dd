package io.sluice.core.head.series;

import io.sluice.core.index.Matcher;
import io.sluice.core.index.Postings;
import io.sluice.core.index.Selector;
import io.sluice.core.labels.LabelsView;
import io.sluice.core.labels.SymbolTable;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * A shard's label index: the symbol table of its label names and values and the postings that
 * map each (name, value) pair to the ids of the series that carry it. Written by the shard thread
 * when a series is created (never per sample); read by query threads through {@link #select}.
 */
public final class ShardIndex {
    private final SymbolTable symbols = new SymbolTable();
    private final Postings postings = new Postings();
    private final Selector selector = new Selector(symbols, postings);
    private final LabelsView view = new LabelsView(); // shard thread only
    private int[] nameIds = new int[32];               // shard thread only
    private int[] valueIds = new int[32];

    /** Indexes a new series by its canonical labels. Shard thread. */
    public void add(int seriesId, byte[] labels, int offset, int length) {
        int n = symbolIds(labels, offset, length, true); // first: it may grow nameIds/valueIds
        postings.add(seriesId, nameIds, valueIds, n);
    }

    /** Removes an (evicted) series indexed with these canonical labels. Shard thread. */
    void remove(int seriesId, byte[] labels, int offset, int length) {
        int n = symbolIds(labels, offset, length, false); // first: it may grow nameIds/valueIds
        postings.remove(seriesId, nameIds, valueIds, n);
    }

    /** Fills nameIds/valueIds with the labels' symbols (interning them, or finding existing ones); returns the label count. */
    private int symbolIds(byte[] labels, int offset, int length, boolean intern) {
        view.wrap(labels, offset, length);
        int n = view.count();
        if (n > nameIds.length) {
            nameIds = new int[n];
            valueIds = new int[n];
        }
        int i = 0;
        while (view.next()) {
            // View offsets are relative to the wrapped region.
            nameIds[i] = symbol(labels, offset + view.nameOffset(), view.nameLength(), intern);
            valueIds[i] = symbol(labels, offset + view.valueOffset(), view.valueLength(), intern);
            i++;
        }
        return n;
    }

    private int symbol(byte[] labels, int offset, int length, boolean intern) {
        return intern ? symbols.intern(labels, offset, length) : symbols.find(labels, offset, length);
    }

    /** Ids of the series matching every matcher (Prometheus semantics). Any thread. */
    public RoaringBitmap select(Matcher... matchers) {
        return selector.select(matchers);
    }

    /** Label names present in this shard, sorted. Any thread. */
    public List<String> labelNames() {
        return selector.labelNames();
    }

    /** Values of {@code name} present in this shard, sorted. Any thread. */
    public List<String> labelValues(String name) {
        return selector.labelValues(name);
    }

    public SymbolTable symbols() {
        return symbols;
    }

    public long heapBytes() {
        return postings.heapBytes() + symbols.heapBytes();
    }

    public long postingsHeapBytes() {
        return postings.heapBytes();
    }
}
