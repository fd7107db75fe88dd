package io.sluice.bench.head;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Selection and read-back in a shard of 100,000 node-exporter-like series with 20 samples each:
 * the matchers run on the postings, then every selected series is snapshotted (labels and chunks
 * copied under its sequence lock) and all its samples iterated. Score: µs per query.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ShardSelectBenchmark extends AbstractBenchmark {
    static final int SERIES = 100_000;

    @Param({"one", "ten-thousand"})
    public String shape;

    ShardDriver driver;
    Matcher[] matchers;
    final SeriesSnapshot snapshot = new SeriesSnapshot();

    @Setup(Level.Trial)
    public void setUp() {
        driver = new ShardDriver(SERIES, 1L << 28);
        for (int i = 0; i < 20; i++) {
            driver.round(SERIES);
        }
        matchers = switch (shape) {
            // series 4242 alone: instance host-132, cpu 4242 % 16 = 2, service svc-42 (4258 shares the first two)
            case "one" -> new Matcher[] {Matcher.eq("__name__", "node_cpu_seconds_total"),
                Matcher.eq("instance", "host-132.example.org:9100"), Matcher.eq("cpu", "2"), Matcher.eq("service", "svc-42")};
            // 5 of 50 services = 10,000 series
            case "ten-thousand" -> new Matcher[] {Matcher.eq("__name__", "node_cpu_seconds_total"),
                Matcher.re("service", "svc-(1|2|3|4|5)")};
            default -> throw new IllegalArgumentException(shape);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        driver.close();
    }

    @Benchmark
    public long selectAndRead(Blackhole bh) {
        RoaringBitmap ids = driver.shard.labelIndex().select(matchers);
        long samples = 0;
        for (PeekableIntIterator it = ids.getIntIterator(); it.hasNext(); ) {
            driver.shard.snapshot(it.next(), Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); ) {
                bh.consume(s.valueBits());
                samples++;
            }
        }
        return samples;
    }
}
