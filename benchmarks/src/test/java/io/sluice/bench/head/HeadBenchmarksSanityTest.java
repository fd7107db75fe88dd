package io.sluice.bench.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.infra.Blackhole;

/** The head benchmarks compute what they claim (run with small data, by calling their methods). */
class HeadBenchmarksSanityTest {
    private static final Blackhole BLACKHOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    @TempDir
    Path dir;

    @Test
    void appendBenchmarkAppendsEverySampleOfTheBatch() throws Exception {
        System.setProperty("sluice.bench.dir", dir.toString());
        HeadAppendBenchmark b = new HeadAppendBenchmark();
        b.series = 1_000;
        b.setUp();
        long before = b.driver.shard.stats().get(ShardStats.Counter.SAMPLES_APPENDED);
        assertThat(b.appendBatch()).isEqualTo(1_000);
        b.trim();
        assertThat(b.driver.shard.stats().get(ShardStats.Counter.SAMPLES_APPENDED) - before).isEqualTo(HeadAppendBenchmark.SAMPLES);
        assertThat(b.driver.shard.stats().get(ShardStats.Counter.SAMPLES_TOO_OLD)).isZero();
        b.tearDown();
    }

    @Test
    void selectBenchmarkFindsOneAndTenThousandSeries() throws Exception {
        System.setProperty("sluice.bench.dir", dir.toString());
        ShardSelectBenchmark b = new ShardSelectBenchmark();
        b.shape = "one";
        b.setUp();
        assertThat(b.selectAndRead(BLACKHOLE)).isEqualTo(20);
        b.matchers = new io.sluice.core.index.Matcher[] {io.sluice.core.index.Matcher.eq("__name__", "node_cpu_seconds_total"),
            io.sluice.core.index.Matcher.re("service", "svc-(1|2|3|4|5)")};
        assertThat(b.selectAndRead(BLACKHOLE)).isEqualTo(10_000L * 20);
        b.tearDown();
    }

    @Test
    void createBenchmarkCreatesAHundredThousandSeries() throws Exception {
        System.setProperty("sluice.bench.dir", dir.toString());
        SeriesCreateBenchmark b = new SeriesCreateBenchmark();
        b.setUp();
        assertThat(b.create100k()).isEqualTo(SeriesCreateBenchmark.SERIES);
        b.tearDown();
    }

    @Test
    void lateBenchmarkStoresItsShareOfLateSamples() throws Exception {
        System.setProperty("sluice.bench.dir", dir.toString());
        LateAppendBenchmark b = new LateAppendBenchmark();
        for (int late : new int[] {0, 10, 100}) {
            b.late = late;
            b.setUp();
            for (int i = 0; i < 3; i++) {
                assertThat(b.appendBatch()).isEqualTo(1_000);
            }
            ShardStats stats = b.driver.shard.stats();
            assertThat(stats.get(ShardStats.Counter.SAMPLES_OUT_OF_ORDER)).isEqualTo(3L * LateAppendBenchmark.SAMPLES * late / 100);
            assertThat(stats.get(ShardStats.Counter.SAMPLES_APPENDED)) // late ones included
                    .isEqualTo((LateAppendBenchmark.SETUP_ROUNDS + 3L) * LateAppendBenchmark.SAMPLES);
            assertThat(stats.get(ShardStats.Counter.SAMPLES_TOO_OLD)).isZero();
            assertThat(stats.get(ShardStats.Counter.SAMPLES_DUPLICATE) + stats.get(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP)).isZero();
        }
        b.tearDown();
    }
}
