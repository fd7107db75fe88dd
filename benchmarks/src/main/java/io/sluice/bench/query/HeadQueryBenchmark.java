package io.sluice.bench.query;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.read.HeadQuery;
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

/**
 * A query through the whole head as the HTTP API runs it: {@link io.sluice.core.head.Head#query}
 * selects in every shard, sorts the series by labels, then each series is snapshotted (chunks copied
 * under its sequence lock) and its samples in the time range iterated. The head holds 100,000
 * node-exporter-like series with 120 samples each (30 minutes at 15 s, one XOR chunk) in 2 shards,
 * filled through the shard threads. Score: µs per query; the sample count is the result.
 *
 * <ul>
 *   <li>{@code selector}: {@code one} = 1 series by 4 matchers; {@code tenth} = 10,000 series
 *       (name + 5 of 50 services by regex); {@code all} = every series (name only).</li>
 *   <li>{@code range}: {@code all} = all 120 samples; {@code last5m} = the last 20 (a dashboard's
 *       refresh: the chunk is still copied whole, the iteration skips).</li>
 * </ul>
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HeadQueryBenchmark extends AbstractBenchmark {
    static final int SERIES = 100_000;
    static final int ROUNDS = 120;

    @Param({"one", "tenth", "all"})
    public String selector;

    @Param({"all", "last5m"})
    public String range;

    /** Overridden by the sanity test to keep its head small. */
    int series = SERIES;

    FilledHead filled;
    Matcher[] matchers;
    long minTimeMs;
    long maxTimeMs;

    @Setup(Level.Trial)
    public void setUp() {
        filled = new FilledHead(series, ROUNDS, 2);
        matchers = switch (selector) {
            // series 4242 alone: cpu 4242 % 16 = 2, instance host-132, service svc-42
            case "one" -> new Matcher[] {Matcher.eq("__name__", "node_cpu_seconds_total"),
                Matcher.eq("instance", "host-132.example.org:9100"), Matcher.eq("cpu", "2"), Matcher.eq("service", "svc-42")};
            case "tenth" -> new Matcher[] {Matcher.eq("__name__", "node_cpu_seconds_total"),
                Matcher.re("service", "svc-(1|2|3|4|5)")};
            case "all" -> new Matcher[] {Matcher.eq("__name__", "node_cpu_seconds_total")};
            default -> throw new IllegalArgumentException("selector " + selector);
        };
        maxTimeMs = FilledHead.FIRST_MS + (ROUNDS - 1) * FilledHead.STEP_MS;
        minTimeMs = switch (range) {
            case "all" -> FilledHead.FIRST_MS;
            case "last5m" -> maxTimeMs - 19 * FilledHead.STEP_MS;
            default -> throw new IllegalArgumentException("range " + range);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        filled.close();
    }

    /** Returns the samples read (in range), consuming each value. */
    @Benchmark
    public long query(Blackhole bh) {
        HeadQuery q = filled.head.query(minTimeMs, maxTimeMs, matchers);
        long samples = 0;
        while (q.next()) {
            bh.consume(q.labels().length());
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                bh.consume(s.valueBits());
                samples++;
            }
        }
        return samples;
    }
}
