package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.SeriesSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head as the engine's storage on a real head: each series' labels whole, or only those an
 * aggregation reads ({@link SeriesSet#labels(List)}), decoded from the series' own label bytes, in label
 * order, for series on both shards.
 */
class HeadQueryableTest {
    @TempDir
    Path dir;

    @Test
    void labelsWholeOrOnlyTheNamedOnes() throws Exception {
        try (QueryFixture f = new QueryFixture(dir)) {
            for (int i = 0; i < 6; i++) {
                f.append(Map.of("__name__", "req_total", "job", i % 2 == 0 ? "api" : "db", "instance", "i-" + i, "zone", "z" + (i % 3)),
                        new long[] {1_000}, new double[] {i});
            }
            f.append(Map.of("__name__", "req_total", "instance", "i-9"), new long[] {1_000}, new double[] {9});
            HeadQueryable storage = new HeadQueryable(f.head);
            List<LabelMatcher> m = List.of(LabelMatcher.equal("__name__", "req_total"));

            List<Labels> whole = new ArrayList<>();
            List<Labels> byJobZone = new ArrayList<>();
            List<Labels> none = new ArrayList<>();
            List<Labels> nameOnly = new ArrayList<>();
            try (SeriesSet a = storage.select(0, 2_000, m); SeriesSet b = storage.select(0, 2_000, m);
                 SeriesSet c = storage.select(0, 2_000, m); SeriesSet d = storage.select(0, 2_000, m)) {
                while (a.next() & b.next() & c.next() & d.next()) {
                    whole.add(a.labels());
                    byJobZone.add(b.labels(List.of("job", "zone")));
                    none.add(c.labels(List.of()));
                    nameOnly.add(d.labels(List.of("__name__")));
                }
            }
            assertThat(whole).hasSize(7).isSorted();
            assertThat(whole.get(0)).isEqualTo(Labels.of("__name__", "req_total", "instance", "i-0", "job", "api", "zone", "z0"));
            for (int i = 0; i < whole.size(); i++) {
                assertThat(byJobZone.get(i)).isEqualTo(whole.get(i).only(List.of("job", "zone")));
                assertThat(nameOnly.get(i)).isEqualTo(Labels.of("__name__", "req_total"));
            }
            assertThat(byJobZone.get(6)).isEqualTo(Labels.EMPTY); // i-9 has neither
            assertThat(byJobZone.get(1)).isEqualTo(Labels.of("job", "db", "zone", "z1"));
            assertThat(none).containsOnly(Labels.EMPTY);
        }
    }
}
