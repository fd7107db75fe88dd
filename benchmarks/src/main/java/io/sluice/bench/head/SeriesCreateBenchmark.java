package io.sluice.bench.head;

import io.sluice.bench.AbstractBenchmark;
import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Series creation through the shard: hash lookup miss, struct, label arena, SERIES WAL record,
 * symbol interning and postings of 10 labels, then the first sample. A fresh shard per iteration
 * creates 100,000 series in batches of 1,000. Score: ns per series.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@Warmup(iterations = 3, batchSize = 1)
@Measurement(iterations = 5, batchSize = 1)
public class SeriesCreateBenchmark extends AbstractBenchmark {
    static final int SERIES = 100_000;
    ShardDriver driver;

    @Setup(Level.Iteration)
    public void setUp() {
        driver = new ShardDriver(SERIES, 1L << 28);
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        driver.close();
    }

    @Benchmark
    @OperationsPerInvocation(SERIES)
    public int create100k() {
        for (int from = 0; from < SERIES; from += 1_000) {
            driver.roundRange(from, 1_000);
        }
        return driver.shard.seriesCount();
    }
}
