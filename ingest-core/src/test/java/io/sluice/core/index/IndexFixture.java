package io.sluice.core.index;

import io.sluice.core.labels.SymbolTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/** A shard's symbols, postings and selector, fed the way the series registry feeds them. */
final class IndexFixture {
    final SymbolTable symbols = new SymbolTable();
    final Postings postings = new Postings();
    final Selector selector = new Selector(symbols, postings);
    private final List<Map<String, String>> series = new ArrayList<>();
    private final int[] nameIds = new int[64];
    private final int[] valueIds = new int[64];

    /** Adds a series with the next id; labels with empty values are absent. */
    int add(Map<String, String> labels) {
        int id = series.size();
        series.add(labels);
        index(id, labels, true);
        return id;
    }

    void remove(int id) {
        index(id, series.get(id), false);
    }

    private void index(int id, Map<String, String> labels, boolean add) {
        int n = 0;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            if (!e.getValue().isEmpty()) {
                nameIds[n] = intern(e.getKey());
                valueIds[n++] = intern(e.getValue());
            }
        }
        if (add) {
            postings.add(id, nameIds, valueIds, n);
        } else {
            postings.remove(id, nameIds, valueIds, n);
        }
    }

    /** The selected series, each printed as its labels. */
    TreeSet<String> select(Matcher... matchers) {
        return describe(selector.select(matchers));
    }

    TreeSet<String> describe(RoaringBitmap ids) {
        TreeSet<String> described = new TreeSet<>();
        ids.forEach((int id) -> described.add(series.get(id).toString()));
        return described;
    }

    Map<String, String> labels(int id) {
        return series.get(id);
    }

    int intern(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return symbols.intern(b, 0, b.length);
    }
}
