package io.sluice.promql.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.PosRange;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A range query evaluates series at a time with reused buffers: {@code sum by (job) (rate(x[5m]))} over
 * N series × S steps allocates O(N + S), not O(samples): far less than one double per sample read.
 */
class AllocationTest {
    static final long M = 60_000;

    static final int SERIES = 2000;
    static final int SAMPLES_PER_SERIES = 481; // 2 h at 15 s

    static MemoryQueryable data() {
        MemoryQueryable db = new MemoryQueryable();
        for (int s = 0; s < SERIES; s++) {
            Labels l = Labels.of("__name__", "x_total", "job", "j" + (s % 10), "instance", "i" + s);
            for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                db.add(l, i * 15_000L, i * (s + 1.0));
            }
        }
        return db;
    }

    static final Expr.VectorSelector X = new Expr.VectorSelector("x_total", List.of(LabelMatcher.equal("__name__", "x_total")), 0,
            Expr.AtKind.NONE, 0, PosRange.NONE);

    @Test
    void rangeQueryAllocatesPerSeriesAndStepNotPerSample() {
        Expr e = new Expr.Aggregate(AggregateOp.SUM,
                new Expr.Call("rate", List.of(new Expr.MatrixSelector(X, 5 * M, PosRange.NONE)), ValueType.VECTOR, PosRange.NONE),
                null, List.of("job"), false, PosRange.NONE);
        assertAllocatesUnderOneBytePerSample(e, 10);
    }

    @Test
    void topkStreamsItsInput() {
        Expr e = new Expr.Aggregate(AggregateOp.TOPK, X, new Expr.NumberLiteral(3, PosRange.NONE), List.of(), false, PosRange.NONE);
        assertAllocatesUnderOneBytePerSample(e, 6); // the top 3 at every step; at t=0 all are 0 and the first three win
    }

    private static void assertAllocatesUnderOneBytePerSample(Expr e, int resultSeries) {
        int series = SERIES;
        int samplesPerSeries = SAMPLES_PER_SERIES;
        MemoryQueryable db = data();
        Engine engine = new Engine(EngineOptions.DEFAULTS);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        QueryResult r = null;
        long allocated = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) { // the last, warmed-up run counts
            long before = mx.getThreadAllocatedBytes(tid);
            r = engine.range(db, e, 0, 2 * 60 * M, 15_000, 0, QueryLimits.NONE);
            allocated = mx.getThreadAllocatedBytes(tid) - before;
        }
        assertThat(r.series()).hasSize(resultSeries);
        long samples = (long) series * samplesPerSeries;
        System.out.printf("allocated %,d bytes for %,d samples (%.2f bytes/sample)%n", allocated, samples, allocated / (double) samples);
        // The result and per-group state are O(steps); per series a few small objects; nothing per sample.
        assertThat(allocated).isLessThan(samples);
    }
}
