package io.sluice.promql.eval;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import io.sluice.promql.storage.Queryable;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An aggregation by some labels asks the store for only those labels of its input series (a selector, or a
 * range function of one), and the answer is the same as with every label: {@code count} asks for none,
 * {@code sum by (job) (rate(...))} for the job and the metric name (the counter check reads it). Other
 * expressions still read whole label sets.
 */
class LabelProjectionTest {
    static final long M = 60_000;
    final Engine engine = new Engine(EngineOptions.DEFAULTS);
    final MemoryQueryable db = new MemoryQueryable();
    /** Per series read: the label names asked for, or null for every label. */
    final List<List<String>> asked = new ArrayList<>();

    /** The store as the engine sees it, recording what each series' labels were asked for, projecting them. */
    final Queryable recording = (mint, maxt, matchers) -> {
        SeriesSet inner = db.select(mint, maxt, matchers);
        return new SeriesSet() {
            @Override
            public boolean next() {
                return inner.next();
            }

            @Override
            public Labels labels() {
                asked.add(null);
                return inner.labels();
            }

            @Override
            public Labels labels(List<String> names) {
                asked.add(names);
                return inner.labels().only(names); // exactly those, as a store that converts only them

            }

            @Override
            public SampleIterator iterator(SampleIterator reuse) {
                return inner.iterator(reuse);
            }
        };
    };

    @BeforeEach
    void load() {
        for (int i = 0; i <= 20; i++) {
            db.add(Labels.of("__name__", "req_total", "job", "api", "instance", "a", "zone", "z1"), i * M, 10.0 * i);
            db.add(Labels.of("__name__", "req_total", "job", "api", "instance", "b", "zone", "z2"), i * M, 20.0 * i);
            db.add(Labels.of("__name__", "req_total", "job", "db", "instance", "a", "zone", "z1"), i * M, 5.0 * i);
            db.add(Labels.of("__name__", "up", "job", "db", "instance", "a"), i * M, 1);
        }
    }

    private String instant(String query) {
        asked.clear();
        QueryResult projected = engine.instant(recording, query, 10 * M, 0, QueryLimits.NONE);
        QueryResult whole = engine.instant(db, query, 10 * M, 0, QueryLimits.NONE);
        String text = render(projected);
        assertThat(text).isEqualTo(render(whole));
        return text;
    }

    private String range(String query) {
        asked.clear();
        QueryResult projected = engine.range(recording, query, 0, 20 * M, 5 * M, 0, QueryLimits.NONE);
        QueryResult whole = engine.range(db, query, 0, 20 * M, 5 * M, 0, QueryLimits.NONE);
        String text = render(projected);
        assertThat(text).isEqualTo(render(whole));
        return text;
    }

    private static String render(QueryResult r) {
        StringBuilder b = new StringBuilder();
        for (QueryResult.Series s : r.series()) {
            b.append(s.labels()).append(':');
            for (int i = 0; i < s.count(); i++) {
                b.append(' ').append(s.timestamps()[i]).append('=').append(s.values()[i]);
            }
            b.append('\n');
        }
        return b.append(r.infos()).append(r.warnings()).toString();
    }

    @Test
    void countAsksForNoLabels() {
        assertThat(instant("count(req_total)")).startsWith("{}: 600000=3.0");
        assertThat(asked).hasSize(3).containsOnly(List.of());
        assertThat(range("count({job=~\".+\"})")).startsWith("{}: 0=4.0");
        assertThat(asked).hasSize(4).containsOnly(List.of());
    }

    @Test
    void sumByAsksForItsLabelsAndKeepsThem() {
        assertThat(instant("sum by (job) (req_total)")).isEqualTo("{job=\"api\"}: 600000=300.0\n{job=\"db\"}: 600000=50.0\n[][]");
        assertThat(asked).containsOnly(List.of("job"));
        assertThat(instant("max by (zone, job) (req_total)")).startsWith("{job=\"api\", zone=\"z1\"}: 600000=100.0\n");
        assertThat(asked).containsOnly(List.of("job", "zone"));
    }

    @Test
    void aRangeFunctionAlsoGetsTheMetricNameForItsCounterCheck() {
        assertThat(range("sum by (job) (rate(req_total[5m]))")).contains("{job=\"api\"}: 300000=0.5");
        assertThat(asked).containsOnly(List.of("__name__", "job"));
        assertThat(instant("sum(rate(up[5m]))")).contains("PromQL info: metric might not be a counter");
        assertThat(asked).containsOnly(List.of("__name__"));
        assertThat(instant("sum by (__name__) (up)")).startsWith("up{}: 600000=1.0");
        assertThat(asked).containsOnly(List.of("__name__"));
    }

    @Test
    void otherExpressionsReadEveryLabel() {
        instant("sum without (instance) (req_total)");
        assertThat(asked).hasSize(3).containsOnly((List<String>) null);
        instant("topk(1, req_total)");
        assertThat(asked).hasSize(3).containsOnly((List<String>) null);
        instant("sum by (job) (label_replace(req_total, \"job\", \"x\", \"instance\", \"b\"))");
        assertThat(asked).hasSize(3).containsOnly((List<String>) null);
        instant("sum by (job) (abs(req_total))");
        assertThat(asked).hasSize(3).containsOnly((List<String>) null);
    }
}
