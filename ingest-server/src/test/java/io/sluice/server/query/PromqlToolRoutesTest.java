package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * buildinfo, metadata, query_exemplars, format_query and parse_query over real HTTP. Every expected
 * body was answered by Prometheus v3 (Go module v0.314.0) to the same request, byte for byte (the
 * version fields of buildinfo aside).
 */
class PromqlToolRoutesTest {
    @TempDir
    Path dir;
    private QueryFixture fx;

    @BeforeEach
    void start() throws Exception {
        fx = new QueryFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static String ok(String data) {
        return "{\"status\":\"success\",\"data\":" + data + "}";
    }

    private static String badData(String error) {
        return "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"" + error.replace("\"", "\\\"") + "\"}";
    }

    @Test
    void buildInfoHasPrometheusShapeAndAPrometheus3Version() throws Exception {
        HttpResponse<String> r = fx.get("/api/v1/status/buildinfo");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(r.body()).matches("\\{\"status\":\"success\",\"data\":\\{\"version\":\"3\\.0\\.0\",\"revision\":\"[^\"]*\","
                + "\"branch\":\"\",\"buildUser\":\"\",\"buildDate\":\"\",\"goVersion\":\"\"}}");
        assertThat(r.body()).as("no application field: Grafana would take the server for Mimir or Cortex").doesNotContain("application");
        assertThat(fx.postForm("/api/v1/status/buildinfo", "").statusCode()).as("GET only, as Prometheus").isEqualTo(405);
    }

    @Test
    void metadataAndExemplarsAreEmpty() throws Exception {
        assertThat(fx.get("/api/v1/metadata").body()).isEqualTo(ok("{}"));
        assertThat(fx.get("/api/v1/metadata?metric=up&limit=1").body()).isEqualTo(ok("{}"));
        assertThat(fx.get("/api/v1/query_exemplars?query=up").body()).isEqualTo(ok("[]"));
        assertThat(fx.postForm("/api/v1/query_exemplars", "query=up&start=0&end=10").body()).isEqualTo(ok("[]"));
        HttpResponse<String> bad = fx.get("/api/v1/query_exemplars?query=" + enc("up{"));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).isEqualTo(badData("1:4: parse error: unexpected end of input inside braces"));
        HttpResponse<String> badTime = fx.get("/api/v1/query_exemplars?query=up&start=abc");
        assertThat(badTime.statusCode()).isEqualTo(400);
        assertThat(badTime.body()).isEqualTo(badData("invalid parameter \"start\": invalid time value for 'start': cannot parse \"abc\" "
                + "to a valid timestamp"));
        assertThat(fx.get("/api/v1/query_exemplars?query=up&start=2&end=1").body())
                .isEqualTo(badData("end timestamp must not be before start timestamp"));
        assertThat(fx.get("/api/v1/metadata?limit=-1").body()).isEqualTo(ok("{}"));
        assertThat(fx.get("/api/v1/metadata?limit_per_metric=x").body()).isEqualTo(badData("limit_per_metric must be a number"));
        assertThat(fx.get("/api/v1/query_exemplars").body())
                .isEqualTo(badData("unknown position: parse error: no expression found in input"));
    }

    @Test
    void formatQueryAnswersPrometheusPrettyForm() throws Exception {
        assertThat(fx.get("/api/v1/format_query?query=" + enc("sum(rate(x[5m]))by(job)")).body())
                .isEqualTo(ok("\"sum by (job) (rate(x[5m]))\""));
        String longQuery = "sum by (job, instance, very_long_label_name_here) (rate(http_requests_total{job=\"api-server\", "
                + "handler=\"/api/v1/query\"}[5m])) / on(job) group_left sum by (job) (rate(x[5m]))";
        String pretty = "\"  sum by (job, instance, very_long_label_name_here) (\\n"
                + "    rate(http_requests_total{handler=\\\"/api/v1/query\\\",job=\\\"api-server\\\"}[5m])\\n"
                + "  )\\n/ on (job) group_left ()\\n  sum by (job) (rate(x[5m]))\"";
        assertThat(fx.get("/api/v1/format_query?query=" + enc(longQuery)).body()).isEqualTo(ok(pretty));
        assertThat(fx.postForm("/api/v1/format_query", "query=" + enc("foo{a=\"b\"}")).body()).isEqualTo(ok("\"foo{a=\\\"b\\\"}\""));
        assertThat(fx.get("/api/v1/format_query?query=" + enc("rate(foo[5m:1m] @ end())")).body())
                .isEqualTo(ok("\"rate(foo[5m:1m] @ end())\""));
    }

    @Test
    void parseQueryAnswersPrometheusSyntaxTree() throws Exception {
        assertThat(fx.get("/api/v1/parse_query?query=" + enc("sum(rate(x[5m]))by(job)")).body()).isEqualTo(ok(
                "{\"expr\":{\"args\":[{\"anchored\":false,\"matchers\":[{\"name\":\"__name__\",\"type\":\"=\",\"value\":\"x\"}],"
                        + "\"name\":\"x\",\"offset\":0,\"offsetExpr\":null,\"range\":300000,\"rangeExpr\":null,\"smoothed\":false,"
                        + "\"startOrEnd\":null,\"timestamp\":null,\"type\":\"matrixSelector\"}],\"func\":{\"argTypes\":[\"matrix\"],"
                        + "\"name\":\"rate\",\"returnType\":\"vector\",\"variadic\":0},\"type\":\"call\"},\"grouping\":[\"job\"],"
                        + "\"op\":\"sum\",\"param\":null,\"type\":\"aggregation\",\"without\":false}"));
        assertThat(fx.postForm("/api/v1/parse_query", "query=" + enc("-foo > bool 1")).body()).isEqualTo(ok(
                "{\"bool\":true,\"lhs\":{\"expr\":{\"anchored\":false,\"matchers\":[{\"name\":\"__name__\",\"type\":\"=\",\"value\":\"foo\"}],"
                        + "\"name\":\"foo\",\"offset\":0,\"offsetExpr\":null,\"smoothed\":false,\"startOrEnd\":null,\"timestamp\":null,"
                        + "\"type\":\"vectorSelector\"},\"op\":\"-\",\"type\":\"unaryExpr\"},\"matching\":null,\"op\":\"\\u003e\","
                        + "\"rhs\":{\"type\":\"numberLiteral\",\"val\":\"1\"},\"type\":\"binaryExpr\"}"));
        assertThat(fx.get("/api/v1/parse_query?query=" + enc("foo[5m:1m]")).body()).isEqualTo(ok(
                "{\"expr\":{\"anchored\":false,\"matchers\":[{\"name\":\"__name__\",\"type\":\"=\",\"value\":\"foo\"}],\"name\":\"foo\","
                        + "\"offset\":0,\"offsetExpr\":null,\"smoothed\":false,\"startOrEnd\":null,\"timestamp\":null,\"type\":\"vectorSelector\"},"
                        + "\"offset\":0,\"offsetExpr\":null,\"range\":300000,\"rangeExpr\":null,\"startOrEnd\":null,\"step\":60000,"
                        + "\"stepExpr\":null,\"timestamp\":null,\"type\":\"subquery\"}"));
    }

    /** One query of every parse-error class: 400 bad_data with the position, Prometheus' text. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "sum(rate(x[5m])|1:16: parse error: unclosed left parenthesis",
        "1 +|1:4: parse error: unexpected end of input",
        "x{|1:3: parse error: unexpected end of input inside braces",
        "x{a=~\"((\"}|1:3: parse error: error parsing regexp: missing closing ): `((`",
        "foo bar|1:5: parse error: unexpected identifier \"bar\"",
        "rate(x)|1:6: parse error: expected type range vector in call to function \"rate\", got instant vector",
        "topk(3, \"s\")|1:9: parse error: expected type instant vector in aggregation expression, got string",
        "x[5m|1:5: parse error: unclosed left bracket",
        "1 + $|1:5: parse error: unexpected character: '$'",
        "x offset|1:9: parse error: unexpected end of input in offset, expected number, duration, step(), or range()",
        "'abc|1:1: parse error: unterminated quoted string",
    })
    void everyParseErrorClassIs400WithThePosition(String query, String error) throws Exception {
        for (String path : new String[] {"/api/v1/parse_query", "/api/v1/format_query"}) {
            HttpResponse<String> r = fx.get(path + "?query=" + enc(query));
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).isEqualTo(badData("invalid parameter \"query\": " + error));
        }
        HttpResponse<String> r = fx.get("/api/v1/query?query=" + enc(query) + "&time=1");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"errorType\":\"bad_data\"").contains(error.replace("\"", "\\\""));
    }

    @Test
    void missingQueryIsNoExpression() throws Exception {
        HttpResponse<String> r = fx.get("/api/v1/parse_query");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo(badData("invalid parameter \"query\": unknown position: parse error: no expression found in input"));
    }
}
