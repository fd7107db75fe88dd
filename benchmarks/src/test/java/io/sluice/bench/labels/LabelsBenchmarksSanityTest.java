package io.sluice.bench.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.LabelsView;
import io.sluice.core.labels.MurmurHash3;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The labels benchmarks compute the right answers (their @Setup and @Benchmark methods, called directly). */
class LabelsBenchmarksSanityTest {
    @Test
    void hashBenchmarkHashesATenLabelSetOfAbout200Bytes() {
        HashBenchmark b = new HashBenchmark();
        b.setUp();
        try {
            assertThat(b.canonical.length).isBetween(170, 230);
            assertThat(new LabelsView().wrap(b.canonical, 0, b.canonical.length).count()).isEqualTo(10);
            long expected = MurmurHash3.hash64(b.canonical, 0, b.canonical.length);
            assertThat(b.murmurByteArray()).isEqualTo(expected);
            assertThat(b.murmurOffHeapSegment()).isEqualTo(expected);
            assertThat(b.hash4jMurmur3()).isEqualTo(expected);
        } finally {
            b.tearDown();
        }
    }

    @Test
    void builderBenchmarkBuildsDistinctSortedSets() {
        LabelsBuilderBenchmark b = new LabelsBuilderBenchmark();
        b.setUp();
        long first = b.buildAndHash();
        LabelsView view = new LabelsView().wrap(b.builder.bytes(), 0, b.builder.length());
        assertThat(view.toMap()).containsKeys("__name__", "instance", "cpu").hasSize(10);
        assertThat(view.toString()).startsWith("{__name__=\"node_cpu_seconds_total\", cluster=\"cluster-0\"");
        assertThat(b.buildAndHash()).isNotEqualTo(first);
        byte[] third = b.series.canonical(2);
        assertThat(b.fromCanonicalAndHash()).as("set 2, as canonical input")
                .isEqualTo(MurmurHash3.hash64(third, 0, third.length));
        assertThat(b.builder.count()).isEqualTo(10);
    }

    @Test
    void symbolTableBenchmarkOnlyHits() {
        SymbolTableBenchmark b = new SymbolTableBenchmark();
        b.setUp();
        int count = b.symbols.count();
        assertThat(b.keys.length).isEqualTo(count);
        for (int k = 0; k < b.keys.length; k++) {
            assertThat(b.internHit()).as("ids are dense in first-seen order").isEqualTo(k);
            assertThat(b.symbols.bytesEqual(k, b.keys[k], 0, b.keys[k].length)).isTrue();
        }
        for (int k = 0; k < b.keys.length; k++) {
            assertThat(b.find()).isEqualTo(k);
        }
        assertThat(b.symbols.count()).isEqualTo(count);
    }

    @Test
    void seriesCreationBenchmarkIndexesEverySeries() {
        SeriesCreationBenchmark b = new SeriesCreationBenchmark();
        b.emptyShard();
        for (int s = 0; s < 1000; s++) {
            assertThat(b.createSeries()).isEqualTo(s);
        }
        assertThat(b.postings.seriesCount()).isEqualTo(1000);
        int cpu = b.symbols.find("cpu");
        assertThat(b.postings.postings(cpu, b.symbols.find("3")).getCardinality()).isEqualTo(10);
        b.emptyShard();
        assertThat(b.postings.seriesCount()).isZero();
    }

    @Test
    void selectBenchmarkQueriesReturnTheirDocumentedCounts() {
        String[] queries = {"one", "metric", "regex", "set", "neq"};
        int[] expected = {1, 10_000, 10_000, 2_000, 9_000};
        SelectBenchmark b = new SelectBenchmark();
        for (int q = 0; q < queries.length; q++) {
            b.query = queries[q];
            b.setUp();
            assertThat(b.select().getCardinality()).as(queries[q]).isEqualTo(expected[q]);
        }
        b.query = "one";
        b.setUp();
        int id = b.select().first();
        assertThat(id).as("instance 42's boot-time series").isEqualTo(42 * 100 + 10);
        assertThat(NodeExporterSeries.instance(42).getBytes(StandardCharsets.UTF_8).length).isGreaterThan(40);
    }
}
