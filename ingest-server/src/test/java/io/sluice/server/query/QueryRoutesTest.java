package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.QueryOptions;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code /api/v1/query} and {@code /api/v1/query_range} over real HTTP: Prometheus' lookback and
 * staleness rules at their edges, range selectors, exact result JSON, unsupported PromQL, limits.
 */
class QueryRoutesTest {
    private static final double STALE = ExportRouteTest.STALE;
    private static final long LOOKBACK_MS = 15_000;

    @TempDir
    Path dir;
    private QueryFixture fx;

    @BeforeEach
    void start() throws Exception {
        fx = new QueryFixture(dir, 2, new QueryOptions(1000, 1000, LOOKBACK_MS));
        fx.append(Map.of("__name__", "m", "a", "1"), new long[] {10_000, 20_000, 30_000, 40_000}, new double[] {1, 2, STALE, 4});
        fx.append(Map.of("__name__", "m", "a", "2"), new long[] {20_000, 45_000}, new double[] {0.1, -0.0});
        fx.append(Map.of("__name__", "special", "v", "nan"), new long[] {1_000}, new double[] {Double.NaN});
        fx.append(Map.of("__name__", "special", "v", "inf"), new long[] {1_000}, new double[] {Double.NEGATIVE_INFINITY});
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String query(String promql, String time) throws Exception {
        return fx.get("/api/v1/query?query=" + enc(promql) + "&time=" + time).body();
    }

    private static String vector(String result) {
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + result + "]}}";
    }

    private static String matrix(String result) {
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[" + result + "]}}";
    }

    private static final String M1 = "{\"metric\":{\"__name__\":\"m\",\"a\":\"1\"},";
    private static final String M2 = "{\"metric\":{\"__name__\":\"m\",\"a\":\"2\"},";

    @Test
    void instantVectorTakesTheLatestSampleWithinTheLookbackAtTheQueryTime() throws Exception {
        assertThat(query("m", "20")).isEqualTo(vector(M1 + "\"value\":[20,\"2\"]}," + M2 + "\"value\":[20,\"0.1\"]}"));
        assertThat(query("m{a=\"1\"}", "19.999")).isEqualTo(vector(M1 + "\"value\":[19.999,\"1\"]}"));
        assertThat(query("m{a=\"1\"}", "25.5")).isEqualTo(vector(M1 + "\"value\":[25.500,\"2\"]}"));
        assertThat(query("m{a=\"1\"}", "54.999")).isEqualTo(vector(M1 + "\"value\":[54.999,\"4\"]}"));
        assertThat(query("m{a=\"1\"}", "55")).as("the lookback window is open at its start").isEqualTo(vector(""));
        assertThat(query("m{a=\"1\"}", "9.999")).isEqualTo(vector(""));
        assertThat(query("m", "45")).isEqualTo(vector(M1 + "\"value\":[45,\"4\"]}," + M2 + "\"value\":[45,\"-0\"]}"));
    }

    @Test
    void aStaleMarkerEndsTheSeries() throws Exception {
        assertThat(query("m{a=\"1\"}", "30")).isEqualTo(vector(""));
        assertThat(query("m{a=\"1\"}", "39.999")).isEqualTo(vector(""));
        assertThat(query("m{a=\"1\"}", "40")).isEqualTo(vector(M1 + "\"value\":[40,\"4\"]}"));
    }

    @Test
    void specialValuesAreQuotedAsPrometheusWritesThem() throws Exception {
        assertThat(query("special", "1")).isEqualTo(vector("{\"metric\":{\"__name__\":\"special\",\"v\":\"inf\"},\"value\":[1,\"-Inf\"]},"
                + "{\"metric\":{\"__name__\":\"special\",\"v\":\"nan\"},\"value\":[1,\"NaN\"]}"));
    }

    @Test
    void rangeSelectorReturnsRawSamplesInAHalfOpenWindowWithoutStaleMarkers() throws Exception {
        assertThat(query("m{a=\"1\"}[20s]", "40")).isEqualTo(matrix(M1 + "\"values\":[[40,\"4\"]]}"));
        assertThat(query("m{a=\"1\"}[30s]", "40")).isEqualTo(matrix(M1 + "\"values\":[[20,\"2\"],[40,\"4\"]]}"));
        assertThat(query("m[1m]", "50")).isEqualTo(matrix(M1 + "\"values\":[[10,\"1\"],[20,\"2\"],[40,\"4\"]]},"
                + M2 + "\"values\":[[20,\"0.1\"],[45,\"-0\"]]}"));
        assertThat(query("m{a=\"1\"}[5s]", "35")).isEqualTo(matrix(""));
    }

    @Test
    void rangeQueryEvaluatesTheInstantRuleAtEachStep() throws Exception {
        String body = fx.get("/api/v1/query_range?query=" + enc("m{a=\"1\"}") + "&start=10&end=60&step=10").body();
        assertThat(body).isEqualTo(matrix(M1 + "\"values\":[[10,\"1\"],[20,\"2\"],[40,\"4\"],[50,\"4\"]]}"));
        String posted = fx.postForm("/api/v1/query_range", "query=" + enc("m") + "&start=" + enc("1970-01-01T00:00:40Z")
                + "&end=46&step=3s").body();
        assertThat(posted).isEqualTo(matrix(M1 + "\"values\":[[40,\"4\"],[43,\"4\"],[46,\"4\"]]},"
                + M2 + "\"values\":[[46,\"-0\"]]}")); // a=2 at 20 s is outside (25, 40]
    }

    @Test
    void instantQueryByFormPostAndDefaultTimeFromTheClock() throws Exception {
        fx.nowMs.set(41_000);
        assertThat(fx.postForm("/api/v1/query", "query=" + enc("m{a=\"1\"}")).body())
                .isEqualTo(vector(M1 + "\"value\":[41,\"4\"]}"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "sum(m)|vector|[{\"metric\":{},\"value\":[40,\"4\"]}]",
        "sum by (a) (m)|vector|[{\"metric\":{\"a\":\"1\"},\"value\":[40,\"4\"]}]",
        "-m|vector|[{\"metric\":{\"a\":\"1\"},\"value\":[40,\"-4\"]}]",
        "m * 2 + 1|vector|[{\"metric\":{\"a\":\"1\"},\"value\":[40,\"9\"]}]",
        "{a=\"1\"} > 0|vector|[{\"metric\":{\"__name__\":\"m\",\"a\":\"1\"},\"value\":[40,\"4\"]}]",
        "count_values(\"x\", m)|vector|[{\"metric\":{\"x\":\"4\"},\"value\":[40,\"1\"]}]",
        "m offset 5m|vector|[]",
        "1 + 1|scalar|[40,\"2\"]",
        "\"text\"|string|[40,\"text\"]",
        "Inf|scalar|[40,\"+Inf\"]"})
    void promqlBeyondSelectorsIsEvaluated(String promql, String resultType, String result) throws Exception {
        HttpResponse<String> r = fx.get("/api/v1/query?time=40&query=" + enc(promql));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"status\":\"success\",\"data\":{\"resultType\":\"" + resultType
                + "\",\"result\":" + result + "}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"m{a=}", "m{a=\"1\"", "m{=\"1\"}", "m{a~\"1\"}", "m{a=\"\\q\"}", "m[5x]", "m[", "{}",
            "{a=~\".*\"}", "m{__name__=\"x\"}", "m{a=~\"(\"}", "m{a=\"x\ny\"}"})
    void malformedSelectorsAreParseErrors(String promql) throws Exception {
        HttpResponse<String> r = fx.get("/api/v1/query?time=40&query=" + enc(promql));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"errorType\":\"bad_data\"").contains("parse error");
    }

    @Test
    void badRangeQueryParameters() throws Exception {
        assertThat(fx.get("/api/v1/query_range?query=" + enc("m[5m]") + "&start=1&end=2&step=1").body())
                .contains("invalid expression type \\\"range vector\\\" for range query");
        assertThat(fx.get("/api/v1/query_range?query=m&start=1&end=2&step=0").body())
                .contains("zero or negative query resolution step widths are not accepted");
        assertThat(fx.get("/api/v1/query_range?query=m&start=0&end=20000&step=1").body())
                .contains("exceeded maximum resolution of 11,000 points per timeseries");
        assertThat(fx.get("/api/v1/query_range?query=m&start=3&end=2&step=1").body())
                .contains("invalid parameter \\\"end\\\": end timestamp must not be before start time");
        assertThat(fx.get("/api/v1/query_range?query=m&start=1&end=2").body())
                .contains("invalid parameter \\\"step\\\": cannot parse \\\"\\\" to a valid duration");
        assertThat(fx.get("/api/v1/query").body())
                .contains("invalid parameter \\\"query\\\": unknown position: parse error: no expression found in input");
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"bad_data\"} 6.0")
                .contains("sluice_query_duration_seconds_count{endpoint=\"query_range\"} 5");
    }

    @Test
    void samplesOverTheLimitAre422(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 1, new QueryOptions(1000, 3, LOOKBACK_MS));
        fx.append(Map.of("__name__", "x"), new long[] {1000, 2000, 3000, 4000}, new double[] {1, 2, 3, 4});
        assertThat(fx.get("/api/v1/query?query=" + enc("x[3s]") + "&time=4").statusCode()).isEqualTo(200);
        HttpResponse<String> r = fx.get("/api/v1/query?query=" + enc("x[10s]") + "&time=4");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("query processing would load too many samples into memory in query execution");
        assertThat(fx.get("/api/v1/query_range?query=x&start=1&end=4&step=1").statusCode()).isEqualTo(422);
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"max_samples\"} 2.0");
    }

    @Test
    void queriesThatCannotBeEvaluatedAre422AndCounted() throws Exception {
        // Both series of m get a="x": one label set twice, Prometheus' execution error.
        HttpResponse<String> r = fx.get("/api/v1/query?query=" + enc("label_replace(m, \"a\", \"x\", \"\", \"\")") + "&time=45");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("\"errorType\":\"execution\"").contains("vector cannot contain metrics with the same labelset");
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"execution\"} 1.0");
    }

    @Test
    void aLargeAnswerStreamsTheSameJsonAsASmallOneIsSent(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 2, new QueryOptions(1000, 1_000_000, LOOKBACK_MS));
        int series = 6;
        int steps = 10_000; // 60,000 points: above PromqlRoutes.WHOLE_POINTS, so streamed in chunks
        long[] ts = new long[steps];
        for (int k = 0; k < steps; k++) {
            ts[k] = (k + 1) * 1000L;
        }
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < series; i++) {
            double[] vs = new double[steps];
            StringBuilder values = new StringBuilder();
            for (int k = 0; k < steps; k++) {
                vs[k] = i * 100_000 + k + 0.5;
                values.append(k == 0 ? "" : ",").append('[').append(k + 1).append(",\"").append(i * 100_000 + k).append(".5\"]");
            }
            fx.append(Map.of("__name__", "big", "i", Integer.toString(i)), ts, vs);
            expected.append(i == 0 ? "" : ",").append("{\"metric\":{\"__name__\":\"big\",\"i\":\"").append(i)
                    .append("\"},\"values\":[").append(values).append("]}");
        }
        HttpResponse<String> r = fx.get("/api/v1/query_range?query=big&start=1&end=" + steps + "&step=1");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(matrix(expected.toString()));
        String small = fx.get("/api/v1/query_range?query=" + enc("big{i=\"3\"}") + "&start=1&end=" + steps + "&step=1").body();
        assertThat(r.body()).contains(small.substring(small.indexOf("[{") + 1, small.lastIndexOf("}]") + 1));
    }

    @Test
    void annotationsCarryTheirPositionAndAtMostTenOfAKindAreListed() throws Exception {
        // As a Prometheus v3 server answers (checked with v0.314.0): the position is the node's line:col.
        assertThat(query("sum(\n  rate(m[1m]))", "45")).endsWith("\"infos\":[\"PromQL info: metric might not be a counter, "
                + "name does not end in _total/_sum/_count/_bucket: \\\"m\\\" (2:8)\"]}");
        StringBuilder twelve = new StringBuilder("quantile(2, m)");
        for (int q = 3; q <= 13; q++) {
            twelve.append(" + quantile(").append(q).append(", m)");
        }
        String body = query(twelve.toString(), "45");
        assertThat(body).contains("\"PromQL warning: quantile value should be between 0 and 1, got 2 (1:10)\"",
                "\"2 more warning annotations omitted\"]");
        assertThat(body.split("PromQL warning: ", -1)).hasSize(11);
    }

    @Test
    void delayedNameRemovalIsAServerOption(@TempDir Path other) throws Exception {
        String q = "label_replace(rate(m[1m]), \"n\", \"$1\", \"__name__\", \"(.*)\")";
        assertThat(query(q, "45")).contains("{\"metric\":{\"a\":\"1\"},");
        fx.close();
        fx = new QueryFixture(other, 1, new QueryOptions(1000, 1000, LOOKBACK_MS, QueryOptions.DEFAULT_TIMEOUT_MS, true));
        fx.append(Map.of("__name__", "m", "a", "1"), new long[] {10_000, 20_000, 40_000}, new double[] {1, 2, 4});
        assertThat(query(q, "45")).contains("{\"metric\":{\"a\":\"1\",\"n\":\"m\"},");
    }

    /**
     * An aggregation reads only its grouping labels of a range function's series; of several metric
     * names, series that differ in other labels must stay distinct when the function drops their names
     * (as in Prometheus), and those that do clash still fail.
     */
    @Test
    void aRangeFunctionOfSeveralNamesUnderAnAggregationKeepsSeriesApart() throws Exception {
        fx.append(Map.of("__name__", "p", "a", "1", "b", "x"), new long[] {10_000, 20_000}, new double[] {1, 3});
        fx.append(Map.of("__name__", "q", "a", "1", "b", "y"), new long[] {10_000, 20_000}, new double[] {1, 5});
        assertThat(query("sum by (a) (sum_over_time({__name__=~\"p|q\"}[1m]))", "20"))
                .isEqualTo(vector("{\"metric\":{\"a\":\"1\"},\"value\":[20,\"10\"]}"));
        fx.append(Map.of("__name__", "r", "a", "1", "b", "x"), new long[] {10_000, 20_000}, new double[] {1, 2});
        assertThat(query("sum by (a) (sum_over_time({__name__=~\"p|r\"}[1m]))", "20"))
                .contains("\"error\":\"vector cannot contain metrics with the same labelset\"");
    }
}
