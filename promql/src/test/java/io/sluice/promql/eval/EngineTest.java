package io.sluice.promql.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.promql.Annotation;
import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.PromQLException;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.PosRange;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import io.sluice.promql.storage.SampleIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The evaluator on hand-built ASTs. Expected values were checked with the reference engine (Prometheus
 * v0.314.0 through its promqltest runner) on the same data and queries.
 */
class EngineTest {
    static final long M = 60_000;
    static final PosRange P = PosRange.NONE;
    final Engine engine = new Engine(EngineOptions.DEFAULTS);
    final MemoryQueryable db = new MemoryQueryable();

    @BeforeEach
    void load() {
        for (int i = 0; i <= 20; i++) {
            db.add(Labels.of("__name__", "http_requests_total", "job", "api", "instance", "a"), i * M, 10.0 * i);
            db.add(Labels.of("__name__", "http_requests_total", "job", "api", "instance", "b"), i * M, 20.0 * i);
            db.add(Labels.of("__name__", "http_requests_total", "job", "db", "instance", "a"), i * M, 5.0 * i);
        }
        Labels gauge = Labels.of("__name__", "gauge", "job", "api");
        db.add(gauge, 0, 1);
        db.add(gauge, M, 2);
        db.add(gauge, 2 * M, 3);
        db.add(gauge, 4 * M, 5);
        db.add(gauge, 5 * M, Double.longBitsToDouble(SampleIterator.STALE_NAN_BITS));
        db.add(gauge, 6 * M, 7);
        db.add(Labels.of("__name__", "limit", "job", "api"), 0, 100);
    }

    static Expr.VectorSelector sel(String name, String... kv) {
        List<LabelMatcher> ms = new ArrayList<>();
        ms.add(LabelMatcher.equal("__name__", name));
        for (int i = 0; i < kv.length; i += 2) {
            ms.add(LabelMatcher.equal(kv[i], kv[i + 1]));
        }
        return new Expr.VectorSelector(name, ms, 0, Expr.AtKind.NONE, 0, P);
    }

    static Expr.MatrixSelector range(Expr.VectorSelector vs, long ms) {
        return new Expr.MatrixSelector(vs, ms, P);
    }

    static Expr.Call call(String fn, ValueType rt, Expr... args) {
        return new Expr.Call(fn, List.of(args), rt, P);
    }

    static Expr.NumberLiteral num(double v) {
        return new Expr.NumberLiteral(v, P);
    }

    static Map<String, Double> vector(QueryResult r) {
        assertThat(r.type()).isEqualTo(ValueType.VECTOR);
        Map<String, Double> m = new TreeMap<>();
        for (QueryResult.Series s : r.series()) {
            assertThat(s.count()).isEqualTo(1);
            m.put(s.labels().toString(), s.values()[0]);
        }
        return m;
    }

    static Map<String, String> matrix(QueryResult r) {
        assertThat(r.type()).isEqualTo(ValueType.MATRIX);
        Map<String, String> m = new TreeMap<>();
        for (QueryResult.Series s : r.series()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < s.count(); i++) {
                sb.append(s.timestamps()[i] / 1000).append('=').append(s.values()[i]).append(' ');
            }
            m.put(s.labels().toString(), sb.toString().trim());
        }
        return m;
    }

    QueryResult instant(Expr e, long t) {
        return engine.instant(db, e, t, 0, QueryLimits.NONE);
    }

    Expr sumByJobRate() {
        return new Expr.Aggregate(AggregateOp.SUM, call("rate", ValueType.VECTOR, range(sel("http_requests_total"), 5 * M)),
                null, List.of("job"), false, P);
    }

    @Test
    void sumByRateInstant() {
        Map<String, Double> v = vector(instant(sumByJobRate(), 10 * M));
        assertThat(v).containsOnlyKeys("{job=\"api\"}", "{job=\"db\"}");
        assertThat(v.get("{job=\"api\"}")).isCloseTo(0.5, within(1e-12));
        assertThat(v.get("{job=\"db\"}")).isCloseTo(0.08333333333333333, within(1e-12));
    }

    @Test
    void sumByRateRange() {
        QueryResult r = engine.range(db, sumByJobRate(), 0, 20 * M, 5 * M, 0, QueryLimits.NONE);
        Map<String, String> m = matrix(r);
        assertThat(m.get("{job=\"api\"}")).isEqualTo("300=0.5 600=0.5 900=0.5 1200=0.5");
        assertThat(m.get("{job=\"db\"}")).startsWith("300=0.08333333333333");
    }

    @Test
    void lookbackAndStaleness() {
        assertThat(vector(instant(sel("gauge"), 4 * M))).containsEntry("gauge{job=\"api\"}", 5.0);
        assertThat(vector(instant(sel("gauge"), 3 * M))).containsEntry("gauge{job=\"api\"}", 3.0);
        assertThat(vector(instant(sel("gauge"), 5 * M))).isEmpty();
        QueryResult r = engine.range(db, sel("gauge"), 0, 6 * M, M, 0, QueryLimits.NONE);
        assertThat(matrix(r)).containsEntry("gauge{job=\"api\"}", "0=1.0 60=2.0 120=3.0 180=3.0 240=5.0 360=7.0");
        // A sample exactly lookback before t is outside the window (t - lookback, t].
        QueryResult late = engine.instant(db, sel("limit"), 5 * M, 0, QueryLimits.NONE);
        assertThat(late.series()).isEmpty();
        assertThat(vector(engine.instant(db, sel("limit"), 5 * M - 1, 0, QueryLimits.NONE))).containsEntry("limit{job=\"api\"}", 100.0);
    }

    @Test
    void groupLeftJoin() {
        Expr e = new Expr.Binary(BinaryOp.DIV, sel("http_requests_total"), sel("limit"), false,
                new Expr.VectorMatching(Expr.Cardinality.MANY_TO_ONE, List.of("job"), true, List.of()), P);
        Map<String, Double> v = vector(engine.instant(db, e, 4 * M, 0, QueryLimits.NONE));
        assertThat(v).containsExactlyInAnyOrderEntriesOf(Map.of(
                "{instance=\"a\", job=\"api\"}", 0.4, "{instance=\"b\", job=\"api\"}", 0.8));
    }

    @Test
    void manyToManyIsAnExecutionError() {
        Expr e = new Expr.Binary(BinaryOp.DIV, sel("limit"), sel("http_requests_total"), false,
                new Expr.VectorMatching(Expr.Cardinality.ONE_TO_ONE, List.of("job"), true, List.of()), P);
        assertThatThrownBy(() -> instant(e, 4 * M)).isInstanceOf(PromQLException.class)
                .hasMessageContaining("many-to-many matching not allowed: matching labels must be unique on one side")
                .extracting(x -> ((PromQLException) x).type()).isEqualTo(PromQLException.ErrorType.EXECUTION);
    }

    @Test
    void topkAbsentSubquery() {
        Expr topk = new Expr.Aggregate(AggregateOp.TOPK, sel("http_requests_total"), num(1), List.of(), false, P);
        assertThat(vector(instant(topk, 10 * M))).containsExactlyEntriesOf(
                Map.of("http_requests_total{instance=\"b\", job=\"api\"}", 200.0));
        Expr absent = call("absent", ValueType.VECTOR, sel("nonexistent", "job", "x"));
        assertThat(vector(instant(absent, 10 * M))).containsExactlyEntriesOf(Map.of("{job=\"x\"}", 1.0));
        Expr sq = new Expr.Subquery(sel("gauge"), 4 * M, M, 0, Expr.AtKind.NONE, 0, P);
        assertThat(vector(instant(call("max_over_time", ValueType.VECTOR, sq), 6 * M)))
                .containsExactlyEntriesOf(Map.of("{job=\"api\"}", 7.0));
    }

    @Test
    void rateOfANonCounterNameIsAnInfo() {
        QueryResult r = instant(call("rate", ValueType.VECTOR, range(sel("gauge"), 5 * M)), 4 * M);
        assertThat(r.infos()).extracting(Annotation::text).containsExactly(
                "PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: \"gauge\"");
    }

    @Test
    void limits() {
        Expr e = sumByJobRate();
        assertThatThrownBy(() -> engine.range(db, e, 0, 20 * M, M, 0, new QueryLimits(Long.MAX_VALUE, 10, () -> false)))
                .hasMessage("query processing would load too many samples into memory in query execution");
        assertThatThrownBy(() -> engine.range(db, e, 0, 20 * M, M, 0, new QueryLimits(System.nanoTime() - 1, Long.MAX_VALUE, () -> false)))
                .isInstanceOf(PromQLException.class)
                .extracting(x -> ((PromQLException) x).type()).isEqualTo(PromQLException.ErrorType.TIMEOUT);
        assertThatThrownBy(() -> engine.range(db, e, 0, 20 * M, M, 0, new QueryLimits(Long.MAX_VALUE, Long.MAX_VALUE, () -> true)))
                .extracting(x -> ((PromQLException) x).type()).isEqualTo(PromQLException.ErrorType.CANCELED);
        assertThatThrownBy(() -> engine.range(db, e, 0, 11_001 * M, M, 0, QueryLimits.NONE))
                .hasMessage("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)");
    }

    @Test
    void everySeriesSetIsClosedAlsoWhenTheQueryFails() {
        int[] open = {0};
        io.sluice.promql.storage.Queryable counting = (mint, maxt, ms) -> {
            io.sluice.promql.storage.SeriesSet inner = db.select(mint, maxt, ms);
            open[0]++;
            return new io.sluice.promql.storage.SeriesSet() {
                public boolean next() {
                    return inner.next();
                }

                public Labels labels() {
                    return inner.labels();
                }

                public SampleIterator iterator(SampleIterator reuse) {
                    return inner.iterator(reuse);
                }

                public void close() {
                    open[0]--;
                }
            };
        };
        Expr bad = new Expr.Binary(BinaryOp.DIV, sel("limit"), sel("http_requests_total"), false,
                new Expr.VectorMatching(Expr.Cardinality.ONE_TO_ONE, List.of("job"), true, List.of()), P);
        assertThatThrownBy(() -> engine.instant(counting, bad, 4 * M, 0, QueryLimits.NONE)).isInstanceOf(PromQLException.class);
        assertThat(open[0]).isZero();
        engine.range(counting, sumByJobRate(), 0, 20 * M, M, 0, QueryLimits.NONE);
        assertThat(open[0]).isZero();
    }

    @Test
    void cancellationStopsAQueryWhileItRuns() {
        MemoryQueryable many = new MemoryQueryable();
        for (int s = 0; s < 1000; s++) {
            for (int i = 0; i < 10; i++) {
                many.add(Labels.of("__name__", "x", "i", "s" + s), i * M, i);
            }
        }
        int[] polls = {0};
        QueryLimits limits = new QueryLimits(Long.MAX_VALUE, Long.MAX_VALUE, () -> ++polls[0] > 3);
        Expr e = new Expr.Aggregate(AggregateOp.SUM, sel("x"), null, List.of(), false, P);
        assertThatThrownBy(() -> engine.range(many, e, 0, 10 * M, M, 0, limits))
                .isInstanceOf(PromQLException.class)
                .hasMessage("query was canceled in expression evaluation");
        assertThat(polls[0]).isBetween(4, 10);
    }

    @Test
    void aSubqueryOfYearsAtAMillisecondStepIsRefusedNotAllocated() {
        Expr sq = new Expr.Subquery(sel("gauge"), 3L * 365 * 24 * 60 * M, 1, 0, Expr.AtKind.NONE, 0, P);
        Expr e = call("max_over_time", ValueType.VECTOR, sq);
        assertThatThrownBy(() -> instant(e, 10 * M))
                .hasMessage("query processing would load too many samples into memory in query execution");
        Expr smaller = call("max_over_time", ValueType.VECTOR,
                new Expr.Subquery(sel("gauge"), 60 * M, 1, 0, Expr.AtKind.NONE, 0, P));
        assertThatThrownBy(() -> engine.instant(db, smaller, 10 * M, 0, new QueryLimits(Long.MAX_VALUE, 1_000_000, () -> false)))
                .hasMessage("query processing would load too many samples into memory in query execution");
    }
}
