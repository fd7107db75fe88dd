package io.sluice.bench.head;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Arrays;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link HeadAppendBenchmark} with a share of late samples: a batch of 1,000 samples across 1,000
 * existing series (one each), of which {@code late} percent are older than their series' newest
 * (inside the out-of-order window) and so go through the duplicate check and into the out-of-order
 * store. Which series are late rotates from batch to batch, so every series keeps getting in-order
 * samples (except at {@code late=100}). Each iteration starts from a fresh shard with 200 in-order
 * samples per series, so the late data of one iteration does not pile up into the next.
 * Score: ns per sample.
 *
 * <p>{@link #main} measures the heap memory of late data instead: the heap used after a GC before
 * and after filling series with late samples at 15 s spacing, in bytes per late sample.
 */
@State(Scope.Thread)
public class LateAppendBenchmark extends AbstractBenchmark {
    static final int SAMPLES = 1_000;
    static final int SETUP_ROUNDS = 200;
    static final long BASE_MS = 1_700_000_000_000L;
    static final long STEP_MS = 15_000;

    /** Percent of the batch's samples that are late. */
    @Param({"0", "10", "100"})
    public int late;

    ShardDriver driver;
    long round;
    long[] newest;
    long[] behind;  // per series: how many late samples went below its newest since it last moved

    @Setup(Level.Iteration)
    public void setUp() throws IOException {
        if (driver != null) {
            driver.close();
        }
        driver = new ShardDriver(SAMPLES, 1L << 30);
        for (int i = 0; i < SETUP_ROUNDS; i++) {
            driver.round(SAMPLES); // the series exist and have open chunks; round r is at BASE_MS + r * STEP_MS
        }
        round = SETUP_ROUNDS;
        newest = new long[SAMPLES];
        Arrays.fill(newest, BASE_MS + (SETUP_ROUNDS - 1) * STEP_MS);
        behind = new long[SAMPLES];
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        driver.close();
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long appendBatch() {
        ShardBatch batch = driver.shard.acquireBatch();
        long r = round++;
        batch.record(driver.stream, r);
        for (int s = 0; s < SAMPLES; s++) {
            long t;
            if ((s + r) % 100 < late) {
                t = lateTimestamp(s);
            } else {
                t = BASE_MS + r * STEP_MS;
                newest[s] = t;
                behind[s] = 0;
            }
            boolean fits = batch.series(driver.hashes[s], driver.labels[s], 0, driver.labels[s].length)
                    && batch.sample(t, NodeCpuSeries.valueBits(s, r));
            if (!fits) {
                throw new IllegalStateException("batch of " + batch.capacityBytes() + " bytes full at series " + s);
            }
        }
        driver.shard.submit(batch);
        driver.shard.doWork();
        return driver.shard.seriesCount();
    }

    /**
     * A timestamp below series {@code s}'s newest it has not been given yet, 1 ms below the last one,
     * skipping the 15 s grid of the in-order samples (those would be duplicates).
     */
    private long lateTimestamp(int s) {
        long t = newest[s] - 1 - behind[s]++;
        if ((t - BASE_MS) % STEP_MS == 0) {
            t--;
            behind[s]++;
        }
        return t;
    }

    /**
     * Heap bytes per late sample: {@code series} series get one hour of in-order samples at 15 s
     * (off-heap chunks), then {@code passes} passes of late samples, each one sample 3 s after every
     * in-order one (239 per series per pass, in time order, like a delayed replica's stream). Prints
     * the heap used after a GC before and after the late samples, and the head's own estimate of it.
     * Arguments: [series (10000)] [passes (4)].
     */
    public static void main(String[] args) throws IOException {
        int series = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int rounds = 240; // one hour at 15 s: every late sample stays inside the 1 h window
        try (ShardDriver d = new ShardDriver(series, 1L << 30)) {
            for (int r = 0; r < rounds; r++) {
                d.round(series);
            }
            long offHeap = d.shard.chunkBytesInUse();
            long before = heapUsedAfterGc();
            long record = rounds;
            for (int p = 1; p <= passes; p++) {
                for (int r = 0; r < rounds - 1; r++) { // the last round's +3 s would be newer than the series' newest
                    ShardBatch batch = d.shard.acquireBatch();
                    batch.record(d.stream, record++);
                    long t = BASE_MS + r * STEP_MS + p * 3_000L;
                    for (int s = 0; s < series; s++) {
                        if (!batch.series(d.hashes[s], d.labels[s], 0, d.labels[s].length)
                                || !batch.sample(t, NodeCpuSeries.valueBits(s, r + p * 1_000L))) {
                            throw new IllegalStateException("batch full at series " + s);
                        }
                    }
                    d.shard.submit(batch);
                    d.shard.doWork();
                }
                d.trimWal();
            }
            long after = heapUsedAfterGc();
            long stored = d.shard.stats().get(ShardStats.Counter.SAMPLES_OUT_OF_ORDER);
            long expected = (long) series * (rounds - 1) * passes;
            System.out.printf("series %d, in-order samples %d (off-heap chunk bytes in use %d, %.2f B/sample)%n",
                    series, (long) series * rounds, offHeap, (double) offHeap / ((long) series * rounds));
            System.out.printf("late samples stored %d of %d (too old %d, duplicates %d)%n", stored, expected,
                    d.shard.stats().get(ShardStats.Counter.SAMPLES_TOO_OLD),
                    d.shard.stats().get(ShardStats.Counter.SAMPLES_DUPLICATE)
                            + d.shard.stats().get(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP));
            System.out.printf("heap used after GC: before %d, after %d bytes: %.2f B per late sample, %.0f B per series%n",
                    before, after, (double) (after - before) / stored, (double) (after - before) / series);
            long estimate = d.shard.outOfOrderBytes(); // what sluice_head_out_of_order_bytes shows
            System.out.printf("the head's estimate (sluice_head_out_of_order_bytes): %d bytes, %.2f B per late sample "
                    + "(%.2f of the measured), %d series%n", estimate, (double) estimate / stored,
                    (double) estimate / (after - before), d.shard.outOfOrderSeriesCount());
        }
    }

    private static long heapUsedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
