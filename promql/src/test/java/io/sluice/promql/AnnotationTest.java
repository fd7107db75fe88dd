package io.sluice.promql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Warnings and infos as Prometheus' HTTP API writes them: the text, then the {@code line:col} of the
 * node they are about. Every expected string is what a Prometheus v3 server (v0.314.0) answered on the
 * same data (time 1700000000 s to +600 s every 15 s; {@code x{job=a|b}}; {@code h_bucket} whose
 * {@code le="2"} bucket counts less than {@code le="1"}; {@code b_bucket} with {@code le="x"}), without and
 * with {@code --enable-feature=promql-delayed-name-removal}.
 */
class AnnotationTest {
    static final long T0 = 1_700_000_000_000L;
    static final long END = T0 + 600_000;
    static final MemoryQueryable DB = new MemoryQueryable();
    static final Engine IMMEDIATE = new Engine(EngineOptions.DEFAULTS);
    static final Engine DELAYED = new Engine(EngineOptions.DEFAULTS.withDelayedNameRemoval(true));
    static final String QUANTILE = "PromQL warning: quantile value should be between 0 and 1, got ";
    static final String MONOTONICITY = "PromQL info: input to histogram_quantile needed to be fixed for monotonicity (see "
            + "https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)";

    @BeforeAll
    static void load() {
        for (int t = 0; t <= 600; t += 15) {
            long ts = T0 + t * 1000L;
            DB.add(Labels.of("__name__", "x", "job", "a"), ts, t);
            DB.add(Labels.of("__name__", "x", "job", "b"), ts, 2.0 * t);
            DB.add(Labels.of("__name__", "h_bucket", "le", "1"), ts, 3.0 * t);
            DB.add(Labels.of("__name__", "h_bucket", "le", "2"), ts, 2.0 * t);
            DB.add(Labels.of("__name__", "h_bucket", "le", "+Inf"), ts, 4.0 * t);
            DB.add(Labels.of("__name__", "b_bucket", "le", "x"), ts, t);
            DB.add(Labels.of("__name__", "b_bucket", "le", "+Inf"), ts, t);
        }
    }

    static List<String> warnings(Engine engine, String q) {
        return engine.instant(DB, q, END, 0, QueryLimits.NONE).warnings().stream().map(a -> a.positioned(q)).toList();
    }

    static List<String> infos(Engine engine, String q) {
        return engine.instant(DB, q, END, 0, QueryLimits.NONE).infos().stream().map(a -> a.positioned(q)).toList();
    }

    @Test
    void positionIsTheLineAndColumnOfTheNodeTheAnnotationIsAbout() {
        String counter = "PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: \"x\"";
        assertThat(infos(IMMEDIATE, "rate(x[5m])")).containsExactly(counter + " (1:6)");
        assertThat(infos(IMMEDIATE, "sum(rate(\n  x[5m]))")).containsExactly(counter + " (2:3)");
        // One annotation per text; the position is the one Prometheus met last.
        assertThat(infos(IMMEDIATE, "rate(x[5m]) + rate(x[10m])")).containsExactly(counter + " (1:20)");
        assertThat(warnings(IMMEDIATE, "quantile(1.5, x)")).containsExactly(QUANTILE + "1.5 (1:10)");
        assertThat(warnings(IMMEDIATE, "quantile(-2, x) + quantile(3, x)"))
                .containsExactlyInAnyOrder(QUANTILE + "-2 (1:10)", QUANTILE + "3 (1:28)");
        assertThat(warnings(IMMEDIATE, "quantile_over_time(2, x[5m])")).containsExactly(QUANTILE + "2 (1:20)");
        String sort = "sort(x)";
        assertThat(IMMEDIATE.range(DB, sort, END - 300_000, END, 60_000, 0, QueryLimits.NONE).warnings())
                .extracting(a -> a.positioned(sort))
                .containsExactly("PromQL warning: sort is ineffective for range queries since results are always ordered by labels (1:1)");
    }

    @Test
    void histogramAnnotationsNameTheMetricOnlyWhenNameRemovalIsDelayed() {
        String bad = "histogram_quantile(1.5, b_bucket)";
        String badLe = "PromQL warning: bucket label \"le\" is missing or has a malformed value of \"x\"";
        assertThat(warnings(IMMEDIATE, bad)).containsExactlyInAnyOrder(QUANTILE + "1.5 (1:20)", badLe + " (1:25)");
        assertThat(warnings(DELAYED, bad))
                .containsExactlyInAnyOrder(QUANTILE + "1.5 (1:20)", badLe + " for metric name \"b_bucket\" (1:25)");
        String fixed = "histogram_quantile(0.5, h_bucket)";
        String detail = ", from buckets 2 to 2, with a max diff of 6e+02, over 1 samples from 2023-11-14T22:23:20Z to "
                + "2023-11-14T22:23:20Z (1:25)";
        assertThat(infos(IMMEDIATE, fixed)).containsExactly(MONOTONICITY + detail);
        assertThat(infos(DELAYED, fixed)).containsExactly(MONOTONICITY + " for metric name \"h_bucket\"" + detail);
        String rated = "histogram_quantile(0.5, rate(h_bucket[5m]))";
        assertThat(infos(IMMEDIATE, rated)).containsExactly(MONOTONICITY
                + ", from buckets 2 to 2, with a max diff of 1, over 1 samples from 2023-11-14T22:23:20Z to 2023-11-14T22:23:20Z (1:25)");
    }

    @Test
    void theTestLanguageComparesTheTextWithoutPosition() {
        assertThat(IMMEDIATE.instant(DB, "quantile(1.5, x)", END, 0, QueryLimits.NONE).warnings())
                .extracting(Annotation::text).containsExactly(QUANTILE + "1.5");
    }
}
