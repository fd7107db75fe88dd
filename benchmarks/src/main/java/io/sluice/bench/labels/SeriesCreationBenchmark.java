package io.sluice.bench.labels;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.index.Postings;
import io.sluice.core.labels.SymbolTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Series creation in a shard's index, per series of 10 labels: intern 10 names and 10 values, then
 * add the series to 10 postings lists under the write lock. Each iteration starts from an empty
 * shard and creates new series (ids 0, 1, 2, ... cycling through 30,000 instances. label values,
 * so the index grows as a real head does: new pairs at first, then mostly hits).
 */
@State(Scope.Thread)
public class SeriesCreationBenchmark extends AbstractBenchmark {
    private static final int INSTANCES = 30_000; // 3,000,000 distinct series: more than an iteration creates

    final NodeExporterSeries series = new NodeExporterSeries(INSTANCES);
    SymbolTable symbols;
    Postings postings;
    private final int[] nameIds = new int[NodeExporterSeries.LABELS];
    private final int[] valueIds = new int[NodeExporterSeries.LABELS];
    private int nextSeries;

    @Setup(Level.Iteration)
    public void emptyShard() {
        symbols = new SymbolTable();
        postings = new Postings();
        nextSeries = 0;
    }

    @Benchmark
    public int createSeries() {
        int s = nextSeries++;
        series.index(s % series.seriesCount(), symbols, postings, nameIds, valueIds);
        return s;
    }
}
