package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.TestHeads;
import io.sluice.server.TestHttp;
import io.sluice.server.config.QueryOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and oversized PromQL over real HTTP (issue 14, "Bad input"): each is refused with a clear
 * error, bounded by a limit, or answered; never an out-of-memory error, a stack overflow or a worker
 * stuck on a query nobody waits for.
 */
class PromqlLimitsTest {
    /** Series of the "many" fixture; the engine checks its deadline and cancellation every 64 series. */
    private static final int SERIES = 2_000;
    /** A range query over every series at 11,000 steps: ~22M points, seconds of work for the engine. */
    private static final String SLOW = "sum(quantile_over_time(0.5, many[1d]))";

    @TempDir
    Path dir;
    private QueryFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private void many(QueryOptions options) throws Exception {
        fx = new QueryFixture(dir, 2, options);
        List<Map<String, String>> series = new ArrayList<>();
        double[] values = new double[SERIES];
        for (int i = 0; i < SERIES; i++) {
            series.add(Map.of("__name__", "many", "i", Integer.toString(i)));
            values[i] = i;
        }
        for (int round = 0; round < 4; round++) {
            fx.submitRound(series, 1_000L * round, values);
        }
        fx.awaitApplied();
    }

    /** A form POST on a connection of its own, with a deadline (a stuck request fails, never hangs the build). */
    private HttpResponse<String> post(String path, String form) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(TestHttp.uri(fx.http.address(), path)).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void deepNestingIsAParseErrorNotAStackOverflow() throws Exception {
        fx = new QueryFixture(dir);
        String deep = "(".repeat(100_000) + "1" + ")".repeat(100_000);
        for (String path : new String[] {"/api/v1/query", "/api/v1/parse_query", "/api/v1/format_query"}) {
            HttpResponse<String> r = post(path, "query=" + enc(deep));
            assertThat(r.statusCode()).as(path).isEqualTo(400);
            assertThat(r.body()).as(path).startsWith("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"")
                    .containsPattern("1:\\d+: parse error: ");
        }
        String unary = "-".repeat(100_000) + "1";
        assertThat(post("/api/v1/query", "query=" + enc(unary)).statusCode()).isEqualTo(400);
    }

    @Test
    void aHugeRegexIsRefusedBeforeItIsCompiled() throws Exception {
        fx = new QueryFixture(dir);
        fx.append(Map.of("__name__", "x", "a", "b"), new long[] {1000}, new double[] {1});
        String huge = "x{a=~\"" + "(a|b)*".repeat(100_000 / 6) + "\"}";
        HttpResponse<String> r = post("/api/v1/query", "query=" + enc(huge) + "&time=1");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"query\\\": 1:3: parse error: "
                + "regex for label a too long: 99996 characters, at most 16384\"}");
        String nested = "x{a=~\"" + "(".repeat(8_000) + "a" + ")".repeat(8_000) + "\"}";
        HttpResponse<String> deep = post("/api/v1/query", "query=" + enc(nested) + "&time=1");
        // RE2J parses recursively: so deep a nesting exhausts the worker's stack (422, the worker lives on).
        assertThat(deep.statusCode()).as(deep.body()).isIn(200, 400, 422);
        String pathological = "x{a=~\"" + "(a*)*".repeat(300) + "c\"}"; // RE2: linear time, no backtracking
        assertThat(post("/api/v1/query", "query=" + enc(pathological) + "&time=1").statusCode()).isEqualTo(200);
        // RE2J's matcher recurses per nested empty-width loop, so (a*)* 3,000 times (under the length bound)
        // exhausts a worker's stack while matching: 422, and the worker lives on.
        String deeper = "x{a=~\"" + "(a*)*".repeat(3_000) + "c\"}";
        HttpResponse<String> tooComplex = post("/api/v1/query", "query=" + enc(deeper) + "&time=1");
        assertThat(tooComplex.statusCode()).isEqualTo(422);
        assertThat(tooComplex.body()).contains("\"errorType\":\"execution\"").contains("query too complex to evaluate");
        assertThat(post("/api/v1/query", "query=x&time=1").statusCode()).isEqualTo(200);
    }

    @Test
    void yearsAtOneMillisecondStepAreRefusedByThe11000PointsRule() throws Exception {
        fx = new QueryFixture(dir);
        HttpResponse<String> r = fx.get("/api/v1/query_range?query=" + enc("vector(1)")
                + "&start=0&end=" + (5L * 365 * 86_400) + "&step=0.001");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("exceeded maximum resolution of 11,000 points per timeseries");
        HttpResponse<String> subquery = fx.get("/api/v1/query?query=" + enc("count_over_time(vector(1)[5y:1ms])") + "&time=0");
        assertThat(subquery.statusCode()).as("a subquery of years at 1ms is bounded by query.max-samples").isEqualTo(422);
    }

    @Test
    void countValuesOverEverySeriesIsBoundedByMaxSamples() throws Exception {
        many(new QueryOptions(100_000, 5_000, 300_000));
        HttpResponse<String> r = fx.get("/api/v1/query?query=" + enc("count_values(\"v\", {__name__=~\".+\"})") + "&time=3");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"resultType\":\"vector\"").contains("{\"v\":\"1999\"},\"value\":[3,\"1\"]");
        HttpResponse<String> range = fx.get("/api/v1/query_range?query=" + enc("count_values(\"v\", {__name__=~\".+\"})")
                + "&start=0&end=10000&step=1");
        assertThat(range.statusCode()).isEqualTo(422);
        assertThat(range.body()).contains("\"errorType\":\"execution\"").contains("too many samples");
    }

    @Test
    void aQueryOverMaxSamplesStopsEarlyWith422() throws Exception {
        many(new QueryOptions(100_000, 100_000, 300_000));
        HttpResponse<String> r = fx.get("/api/v1/query_range?query=" + enc("many") + "&start=0&end=10000&step=1");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would load "
                + "too many samples into memory in query execution\"}");
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"max_samples\"} 1.0");
    }

    @Test
    void aQueryPastQueryTimeoutAnswers503Timeout() throws Exception {
        many(new QueryOptions(100_000, Long.MAX_VALUE / 4, 300_000, 1));
        HttpResponse<String> r = fx.get("/api/v1/query_range?query=" + enc(SLOW) + "&start=0&end=10999&step=1");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in expression evaluation\"}");
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"timeout\"} 1.0");
    }

    @Test
    void theTimeoutParameterShortensTheDeadline() throws Exception {
        many(new QueryOptions(100_000, Long.MAX_VALUE / 4, 300_000));
        HttpResponse<String> r = fx.get("/api/v1/query_range?query=" + enc(SLOW) + "&start=0&end=10999&step=1&timeout=1ms");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("\"errorType\":\"timeout\"");
    }

    /**
     * A client that disconnects mid-query frees the worker: the evaluation sees the closed channel at its
     * next check and stops with {@code canceled} (counted), well before the query would have finished.
     */
    @Test
    void aClientThatDisconnectsStopsItsQuery() throws Exception {
        many(new QueryOptions(100_000, Long.MAX_VALUE / 4, 300_000));
        // Many times the slow query: minutes of work if nothing stopped it.
        String slower = "sum(quantile_over_time(0.5, many[1d])) + sum(quantile_over_time(0.5, many[1d] offset 1s))"
                + " + sum(quantile_over_time(0.5, many[1d] offset 2s)) + sum(quantile_over_time(0.5, many[1d] offset 3s))";
        String request = "GET /api/v1/query_range?query=" + enc("(" + slower + ") * (" + slower + ")")
                + "&start=0&end=10999&step=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", fx.http.address().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300);
        }
        TestHeads.await(() -> fx.registry.scrape().contains("sluice_query_rejected_total{reason=\"canceled\"} 1.0"),
                "the disconnected client's query to stop as canceled");
        assertThat(TestHttp.get(fx.http.address(), "/api/v1/query?query=1&time=0").statusCode()).isEqualTo(200);
    }
}
