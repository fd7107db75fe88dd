package io.sluice.bench.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.infra.Blackhole;

/** The query benchmark reads exactly the samples its selector and range cover, on a small head. */
class HeadQueryBenchmarkSanityTest {
    private static final Blackhole BLACKHOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    private static final int SERIES = 5_000; // enough to hold series 4242, the "one" selector's

    @TempDir
    Path dir;

    @Test
    void everySelectorAndRangeReadsTheSamplesItCovers() throws Exception {
        System.setProperty("sluice.bench.dir", dir.toString());
        assertThat(run("one", "all")).isEqualTo(120);
        assertThat(run("one", "last5m")).isEqualTo(20);
        assertThat(run("tenth", "all")).isEqualTo(SERIES / 10 * 120L);
        assertThat(run("all", "last5m")).isEqualTo(SERIES * 20L);
    }

    private long run(String selector, String range) throws Exception {
        HeadQueryBenchmark b = new HeadQueryBenchmark();
        b.selector = selector;
        b.range = range;
        b.series = SERIES;
        b.setUp();
        try {
            assertThat(b.filled.appended()).isEqualTo(SERIES * (long) HeadQueryBenchmark.ROUNDS);
            long first = b.query(BLACKHOLE);
            assertThat(b.query(BLACKHOLE)).as("a second query reads the same").isEqualTo(first);
            return first;
        } finally {
            b.tearDown();
        }
    }
}
