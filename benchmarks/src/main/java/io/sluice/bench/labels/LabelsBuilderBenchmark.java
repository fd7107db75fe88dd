package io.sluice.bench.labels;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What a consumer thread does per series in a record: build the canonical bytes of a 10-label set
 * from unsorted labels and hash them; or take canonical bytes (the native format) and validate and
 * hash them. Cycles through 1,000 distinct sets of one series family.
 */
@State(Scope.Thread)
public class LabelsBuilderBenchmark extends AbstractBenchmark {
    private static final int SETS = 1000;

    NodeExporterSeries series;
    private byte[][] canonical;
    final LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
    private int next;

    @Setup
    public void setUp() {
        series = new NodeExporterSeries(SETS / NodeExporterSeries.SERIES_PER_INSTANCE);
        canonical = new byte[SETS][];
        for (int s = 0; s < SETS; s++) {
            canonical[s] = series.canonical(s);
        }
    }

    /** Sort, validate (limits, UTF-8, duplicates), encode and hash 10 labels. */
    @Benchmark
    public long buildAndHash() {
        int s = next();
        if (series.build(s, builder) != LabelsStatus.OK) {
            throw new IllegalStateException("series " + s);
        }
        return builder.hash();
    }

    /** Validate already-canonical bytes (order, UTF-8, lengths, limits), copy and hash them. */
    @Benchmark
    public long fromCanonicalAndHash() {
        byte[] c = canonical[next()];
        if (builder.fromCanonical(c, 0, c.length) != LabelsStatus.OK) {
            throw new IllegalStateException("set " + next);
        }
        return builder.hash();
    }

    private int next() {
        int s = next;
        next = s + 1 == SETS ? 0 : s + 1;
        return s;
    }
}
