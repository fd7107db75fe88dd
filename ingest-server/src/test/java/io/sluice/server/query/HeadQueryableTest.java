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
 * order, for series on both shards; an instant read's latest sample, from the series' newest or its chunks.
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

    /**
     * An instant read ({@code selectLatest}, then {@code latest}) gives each series' latest sample in the
     * window, as reading the chunks does: from the series' newest sample when that is in the window, by
     * decoding when the window ends before it, and nothing when the window holds no sample.
     */
    @Test
    void latestSampleFromTheNewestOrTheChunks() throws Exception {
        try (QueryFixture f = new QueryFixture(dir)) {
            long[] ts = new long[300];
            double[] vs = new double[ts.length];
            for (int k = 0; k < ts.length; k++) {
                ts[k] = 15_000L * (k + 1);
            }
            for (int i = 0; i < 4; i++) {
                for (int k = 0; k < ts.length; k++) {
                    vs[k] = i * 1_000 + k * 0.5;
                }
                f.append(Map.of("__name__", "g", "instance", "i-" + i), ts, vs.clone());
            }
            HeadQueryable storage = new HeadQueryable(f.head);
            List<LabelMatcher> m = List.of(LabelMatcher.equal("__name__", "g"));
            long[][] windows = {{ts[299] - 299_999, ts[299]}, {ts[150] - 60_000, ts[150] + 7_000}, {ts[299] + 1, ts[299] + 300_000}};
            int[] expected = {299, 150, -1};
            for (int w = 0; w < windows.length; w++) {
                long from = windows[w][0];
                long to = windows[w][1];
                int seen = 0;
                try (SeriesSet latest = storage.selectLatest(from, to, m); SeriesSet chunks = storage.select(from, to, m)) {
                    io.sluice.promql.storage.SampleIterator a = null;
                    io.sluice.promql.storage.SampleIterator b = null;
                    while (latest.next()) {
                        assertThat(chunks.next()).isTrue();
                        assertThat(latest.labels()).isEqualTo(chunks.labels());
                        a = latest.iterator(a);
                        b = chunks.iterator(b);
                        boolean found = a.latest(from, to);
                        assertThat(found).as("window %d", w).isEqualTo(expected[w] >= 0);
                        assertThat(b.latest(from, to)).isEqualTo(found);
                        if (found) {
                            assertThat(a.timestamp()).isEqualTo(ts[expected[w]]).isEqualTo(b.timestamp());
                            assertThat(a.value()).isEqualTo(seen * 1_000 + expected[w] * 0.5).isEqualTo(b.value());
                        }
                        assertThat(a.next()).isFalse();
                        seen++;
                    }
                    assertThat(chunks.next()).isFalse();
                }
                assertThat(seen).as("window %d", w).isEqualTo(expected[w] >= 0 ? 4 : 0);
            }
        }
    }
}
