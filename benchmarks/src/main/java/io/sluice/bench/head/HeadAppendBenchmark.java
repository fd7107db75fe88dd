package io.sluice.bench.head;

import io.sluice.bench.AbstractBenchmark;
import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Append to existing series, the shape of Prometheus' BenchmarkHeadAppender_AppendCommit: a batch
 * of 1,000 samples across 1,000 series (one each), including building the batch (the consumer's
 * part), the series lookup, the XOR chunk append and the WAL SAMPLES + OFFSETS records; no fsync.
 * Score: ns per sample.
 */
@State(Scope.Thread)
public class HeadAppendBenchmark extends AbstractBenchmark {
    static final int SAMPLES = 1_000;

    @Param({"1000"})
    public int series;

    ShardDriver driver;

    @Setup(Level.Trial)
    public void setUp() {
        driver = new ShardDriver(series, 1L << 30);
        for (int i = 0; i < 200; i++) {
            driver.round(series); // the series exist and have open chunks
        }
    }

    @TearDown(Level.Iteration)
    public void trim() {
        driver.trimWal();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        driver.close();
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long appendBatch() {
        driver.round(series);
        return driver.shard.seriesCount();
    }
}
