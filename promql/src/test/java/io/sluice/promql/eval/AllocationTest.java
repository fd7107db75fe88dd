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

    @Test
    void rangeQueryAllocatesPerSeriesAndStepNotPerSample() {
        int series = 2000;
        int samplesPerSeries = 481; // 2 h at 15 s
        MemoryQueryable db = new MemoryQueryable();
        for (int s = 0; s < series; s++) {
            Labels l = Labels.of("__name__", "x_total", "job", "j" + (s % 10), "instance", "i" + s);
            for (int i = 0; i < samplesPerSeries; i++) {
                db.add(l, i * 15_000L, i * (s + 1.0));
            }
        }
        Expr.VectorSelector vs = new Expr.VectorSelector("x_total", List.of(LabelMatcher.equal("__name__", "x_total")), 0,
                Expr.AtKind.NONE, 0, PosRange.NONE);
        Expr e = new Expr.Aggregate(AggregateOp.SUM,
                new Expr.Call("rate", List.of(new Expr.MatrixSelector(vs, 5 * M, PosRange.NONE)), ValueType.VECTOR, PosRange.NONE),
                null, List.of("job"), false, PosRange.NONE);
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
        assertThat(r.series()).hasSize(10);
        long samples = (long) series * samplesPerSeries;
        System.out.printf("allocated %,d bytes for %,d samples (%.2f bytes/sample)%n", allocated, samples, allocated / (double) samples);
        // The result (10 series × 481 steps) and per-group accumulators are O(steps); per series a few small objects.
        assertThat(allocated).isLessThan(samples * 8 / 4);
    }
}
