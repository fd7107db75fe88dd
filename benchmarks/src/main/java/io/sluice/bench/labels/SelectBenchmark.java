package io.sluice.bench.labels;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.index.Matcher;
import io.sluice.core.index.Postings;
import io.sluice.core.index.Selector;
import io.sluice.core.labels.SymbolTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.roaringbitmap.RoaringBitmap;

/** Selection by matchers in a shard of 100,000 node_exporter-like series. */
@State(Scope.Benchmark)
@OutputTimeUnit(java.util.concurrent.TimeUnit.MICROSECONDS)
public class SelectBenchmark extends AbstractBenchmark {
    static final int INSTANCES = 1000;

    /**
     * one: {__name__="node_boot_time_seconds", instance="..."} (1 series);
     * metric: {__name__="node_cpu_seconds_total"} (10,000);
     * regex: {__name__=~"node_cpu_.*"} (10,000, a scan of 91 names);
     * set: {__name__="node_cpu_seconds_total", cpu=~"1|3"} (2,000, a literal alternation);
     * neq: {__name__="node_cpu_seconds_total", cpu!="0"} (9,000).
     */
    @Param({"one", "metric", "regex", "set", "neq"})
    String query;

    Selector selector;
    Matcher[] matchers;

    @Setup
    public void setUp() {
        NodeExporterSeries series = new NodeExporterSeries(INSTANCES);
        SymbolTable symbols = new SymbolTable();
        Postings postings = new Postings();
        int[] nameIds = new int[NodeExporterSeries.LABELS];
        int[] valueIds = new int[NodeExporterSeries.LABELS];
        for (int s = 0; s < series.seriesCount(); s++) {
            series.index(s, symbols, postings, nameIds, valueIds);
        }
        selector = new Selector(symbols, postings);
        matchers = matchers(query);
    }

    static Matcher[] matchers(String query) {
        Matcher cpu = Matcher.eq("__name__", NodeExporterSeries.CPU_METRIC);
        return switch (query) {
            case "one" -> new Matcher[] {Matcher.eq("__name__", NodeExporterSeries.BOOT_METRIC),
                Matcher.eq("instance", NodeExporterSeries.instance(42))};
            case "metric" -> new Matcher[] {cpu};
            case "regex" -> new Matcher[] {Matcher.re("__name__", "node_cpu_.*")};
            case "set" -> new Matcher[] {cpu, Matcher.re("cpu", "1|3")};
            case "neq" -> new Matcher[] {cpu, Matcher.neq("cpu", "0")};
            default -> throw new IllegalArgumentException("unknown query " + query);
        };
    }

    @Benchmark
    public RoaringBitmap select() {
        return selector.select(matchers);
    }
}
