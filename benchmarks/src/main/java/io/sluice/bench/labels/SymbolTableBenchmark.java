package io.sluice.bench.labels;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.labels.SymbolTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Interning a symbol that exists (the common case on series creation: names and most values are
 * shared) and a reader's find, over the 1,000 distinct values of 10,000 series' labels.
 */
@State(Scope.Thread)
public class SymbolTableBenchmark extends AbstractBenchmark {
    SymbolTable symbols;
    byte[][] keys;
    private int next;

    @Setup
    public void setUp() {
        NodeExporterSeries series = new NodeExporterSeries(100);
        symbols = new SymbolTable();
        java.util.List<byte[]> distinct = new java.util.ArrayList<>();
        for (int s = 0; s < series.seriesCount(); s++) {
            for (int label = 0; label < NodeExporterSeries.LABELS; label++) {
                for (byte[] b : new byte[][] {series.name(s, label), series.value(s, label)}) {
                    if (symbols.find(b, 0, b.length) < 0) {
                        distinct.add(b);
                    }
                    symbols.intern(b, 0, b.length);
                }
            }
        }
        keys = distinct.toArray(byte[][]::new);
    }

    @Benchmark
    public int internHit() {
        byte[] b = keys[next()];
        return symbols.intern(b, 0, b.length);
    }

    @Benchmark
    public int find() {
        byte[] b = keys[next()];
        return symbols.find(b, 0, b.length);
    }

    private int next() {
        int k = next;
        next = k + 1 == keys.length ? 0 : k + 1;
        return k;
    }
}
