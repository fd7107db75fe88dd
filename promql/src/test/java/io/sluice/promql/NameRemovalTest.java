package io.sluice.promql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metric name dropped at once (Prometheus' server default) and at the end of the query (its
 * {@code promql-delayed-name-removal} feature, on in its test engine). Every expected answer is what a
 * Prometheus v3 server (v0.314.0) answered on the same data, once started without and once with
 * {@code --enable-feature=promql-delayed-name-removal}: time 1700000000 s to 1700000600 s every 15 s,
 * {@code x{job=a|b}}, {@code a_total{job=a}}, {@code b_total{job=a}}, {@code c_total{job=a}} until
 * +120 s and {@code d_total{job=a}} from +480 s.
 */
class NameRemovalTest {
    static final long T0 = 1_700_000_000_000L;
    static final long END = T0 + 600_000;
    static final MemoryQueryable DB = new MemoryQueryable();
    static final Engine IMMEDIATE = new Engine(EngineOptions.DEFAULTS);
    static final Engine DELAYED = new Engine(EngineOptions.DEFAULTS.withDelayedNameRemoval(true));
    static final String CLASH = "vector cannot contain metrics with the same labelset";

    @BeforeAll
    static void load() {
        for (int t = 0; t <= 600; t += 15) {
            long ts = T0 + t * 1000L;
            DB.add(Labels.of("__name__", "x", "job", "a"), ts, t);
            DB.add(Labels.of("__name__", "x", "job", "b"), ts, 2.0 * t);
            DB.add(Labels.of("__name__", "a_total", "job", "a"), ts, t);
            DB.add(Labels.of("__name__", "b_total", "job", "a"), ts, 3.0 * t);
            if (t <= 120) {
                DB.add(Labels.of("__name__", "c_total", "job", "a"), ts, t);
            }
            if (t >= 480) {
                DB.add(Labels.of("__name__", "d_total", "job", "a"), ts, 2.0 * t);
            }
        }
    }

    static List<String> instant(Engine engine, String q) {
        List<String> out = new ArrayList<>();
        for (QueryResult.Series s : engine.instant(DB, q, END, 0, QueryLimits.NONE).series()) {
            out.add(s.labels() + " " + s.values()[0]);
        }
        return out;
    }

    static List<String> range(Engine engine, String q) {
        List<String> out = new ArrayList<>();
        for (QueryResult.Series s : engine.range(DB, q, T0, END, 60_000, 0, QueryLimits.NONE).series()) {
            out.add(s.labels() + " " + s.count() + " points");
        }
        return out;
    }

    @Test
    void labelReplaceSeesTheNameOnlyWhenRemovalIsDelayed() {
        String q = "label_replace(rate(a_total[5m]), \"n\", \"$1\", \"__name__\", \"(.*)\")";
        assertThat(instant(IMMEDIATE, q)).containsExactly("{job=\"a\"} 0.9999999999999999");
        assertThat(instant(DELAYED, q)).containsExactly("{job=\"a\", n=\"a_total\"} 0.9999999999999999");
    }

    @Test
    void aSumOfNamesThatClashOnceDroppedFailsOnlyWhenRemovedAtOnce() {
        String q = "sum(-{__name__=~\"a_total|b_total\"})";
        assertThatThrownBy(() -> instant(IMMEDIATE, q)).hasMessage(CLASH);
        assertThat(instant(DELAYED, q)).containsExactly("{} -2400.0");
    }

    @Test
    void aRangeFunctionsOutputsMayNotShareLabelsEvenAtOtherStepsWhenRemovedAtOnce() {
        String q = "rate({__name__=~\"c_total|d_total\"}[1m])";
        assertThatThrownBy(() -> range(IMMEDIATE, q)).hasMessage(CLASH);
        assertThat(range(DELAYED, q)).containsExactly("{job=\"a\"} 4 points");
    }

    @Test
    void otherOutputsThatShareLabelsAtNoStepAreMerged() {
        for (Engine e : List.of(IMMEDIATE, DELAYED)) {
            assertThat(range(e, "-{__name__=~\"c_total|d_total\"}")).containsExactly("{job=\"a\"} 10 points");
            assertThat(range(e, "abs({__name__=~\"c_total|d_total\"})")).containsExactly("{job=\"a\"} 10 points");
            assertThat(range(e, "sum by (__name__) (-{__name__=~\"c_total|d_total\"})")).containsExactly("{} 10 points");
        }
    }

    @Test
    void bothModesAgreeWhereNamesNeverClash() {
        for (Engine e : List.of(IMMEDIATE, DELAYED)) {
            assertThat(instant(e, "count by (__name__) (abs(x))")).containsExactly("{} 2.0");
            for (String q : List.of("rate({__name__=~\"a_total|b_total\"}[5m])", "-{__name__=~\"a_total|b_total\"}",
                    "sum by (__name__) (rate({__name__=~\"a_total|b_total\"}[5m]))",
                    "{__name__=~\"a_total|b_total\"} * 2 > 0")) {
                assertThatThrownBy(() -> instant(e, q)).as(q).hasMessage(CLASH);
            }
        }
    }

    /**
     * {@code __type__} and {@code __unit__} go with the name (Prometheus drops them with
     * {@code DropReserved(schema.IsMetadataLabel)} wherever it drops the name), so series of one metric that
     * differ only in them clash once it is dropped at once.
     */
    @Test
    void typeAndUnitLabelsGoWithTheName() {
        MemoryQueryable db = new MemoryQueryable();
        for (int t = 0; t <= 600; t += 15) {
            long ts = T0 + t * 1000L;
            db.add(Labels.of("__name__", "t", "__type__", "counter", "__unit__", "req", "a", "1"), ts, t);
            db.add(Labels.of("__name__", "t", "__type__", "gauge", "a", "1"), ts, 2.0 * t);
            db.add(Labels.of("__name__", "u", "__type__", "gauge", "a", "1"), ts, 3.0 * t);
        }
        for (Engine e : List.of(IMMEDIATE, DELAYED)) {
            assertThat(e.instant(db, "-t{__unit__=\"req\"}", END, 0, QueryLimits.NONE).series().getFirst().labels())
                    .isEqualTo(Labels.of("a", "1"));
            assertThat(e.instant(db, "u * 2", END, 0, QueryLimits.NONE).series().getFirst().labels()).isEqualTo(Labels.of("a", "1"));
            assertThat(e.instant(db, "t{__unit__=\"req\"}", END, 0, QueryLimits.NONE).series().getFirst().labels())
                    .isEqualTo(Labels.of("__name__", "t", "__type__", "counter", "__unit__", "req", "a", "1"));
        }
        for (String q : List.of("rate(t[5m])", "-t", "abs(t)")) {
            assertThatThrownBy(() -> IMMEDIATE.instant(db, q, END, 0, QueryLimits.NONE)).as(q).hasMessage(CLASH);
        }
    }
}
