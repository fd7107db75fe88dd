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

/** {@code /api/v1/labels}, {@code /api/v1/label/{name}/values} and {@code /api/v1/series} over real HTTP. */
class MetadataRoutesTest {
    @TempDir
    Path dir;
    private QueryFixture fx;

    @BeforeEach
    void start() throws Exception {
        fx = new QueryFixture(dir);
        fx.append(Map.of("__name__", "up", "job", "node", "instance", "a"), new long[] {1000}, new double[] {1});
        fx.append(Map.of("__name__", "up", "job", "api", "zone", "ü"), new long[] {5000}, new double[] {1});
        fx.append(Map.of("__name__", "down", "job", "node"), new long[] {9000}, new double[] {0});
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static String ok(String data) {
        return "{\"status\":\"success\",\"data\":" + data + "}";
    }

    /** Cut at {@code limit}: Prometheus' warning beside the data. */
    private static String truncated(String data) {
        return "{\"status\":\"success\",\"data\":" + data + ",\"warnings\":[\"results truncated due to limit\"]}";
    }

    @Test
    void labelNamesOfTheWholeHeadOrOfMatchingSeries() throws Exception {
        assertThat(fx.get("/api/v1/labels").body()).isEqualTo(ok("[\"__name__\",\"instance\",\"job\",\"zone\"]"));
        assertThat(fx.get("/api/v1/labels?match[]=down").body()).isEqualTo(ok("[\"__name__\",\"job\"]"));
        assertThat(fx.get("/api/v1/labels?match[]=up&start=2").body()).isEqualTo(ok("[\"__name__\",\"job\",\"zone\"]"));
        assertThat(fx.get("/api/v1/labels?limit=2").body()).isEqualTo(truncated("[\"__name__\",\"instance\"]"));
        assertThat(fx.get("/api/v1/labels?limit=4").body()).isEqualTo(ok("[\"__name__\",\"instance\",\"job\",\"zone\"]"));
        assertThat(fx.postForm("/api/v1/labels", "match[]=down").body()).isEqualTo(ok("[\"__name__\",\"job\"]"));
    }

    @Test
    void labelValuesByPathParameter() throws Exception {
        HttpResponse<String> jobs = fx.get("/api/v1/label/job/values");
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.headers().firstValue("content-type")).contains("application/json");
        assertThat(jobs.body()).isEqualTo(ok("[\"api\",\"node\"]"));
        assertThat(fx.get("/api/v1/label/__name__/values").body()).isEqualTo(ok("[\"down\",\"up\"]"));
        assertThat(fx.get("/api/v1/label/zone/values").body()).isEqualTo(ok("[\"ü\"]"));
        assertThat(fx.get("/api/v1/label/nothing/values").body()).isEqualTo(ok("[]"));
        assertThat(fx.get("/api/v1/label/job/values?match[]=up&end=2").body()).isEqualTo(ok("[\"node\"]"));
        assertThat(fx.get("/api/v1/label/job/values/more").statusCode()).isEqualTo(404);
        assertThat(fx.get("/api/v1/label/%6Aob/values").body()).as("percent-decoded").isEqualTo(ok("[\"api\",\"node\"]"));
    }

    /** Like Prometheus: start/end alone restrict labels and values to series with a sample in range. */
    @Test
    void labelsAndValuesHonourStartAndEndWithoutMatch() throws Exception {
        assertThat(fx.get("/api/v1/labels?start=2").body()).isEqualTo(ok("[\"__name__\",\"job\",\"zone\"]"));
        assertThat(fx.get("/api/v1/labels?end=2").body()).isEqualTo(ok("[\"__name__\",\"instance\",\"job\"]"));
        assertThat(fx.get("/api/v1/labels?start=6&end=100").body()).isEqualTo(ok("[\"__name__\",\"job\"]"));
        assertThat(fx.postForm("/api/v1/labels", "start=2&end=6").body()).isEqualTo(ok("[\"__name__\",\"job\",\"zone\"]"));
        assertThat(fx.get("/api/v1/labels?start=10").body()).isEqualTo(ok("[]"));
        assertThat(fx.get("/api/v1/labels?start=0&end=100&limit=1").body()).isEqualTo(truncated("[\"__name__\"]"));
        assertThat(fx.get("/api/v1/label/job/values?start=6").body()).isEqualTo(ok("[\"node\"]"));
        assertThat(fx.get("/api/v1/label/job/values?start=4&end=6").body()).isEqualTo(ok("[\"api\"]"));
        assertThat(fx.get("/api/v1/label/__name__/values?end=4").body()).isEqualTo(ok("[\"up\"]"));
        assertThat(fx.get("/api/v1/label/zone/values?start=6").body()).isEqualTo(ok("[]"));
        // An end before the start: nothing, not an error (Prometheus' answer).
        assertThat(fx.get("/api/v1/labels?start=5&end=4").body()).isEqualTo(ok("[]"));
        assertThat(fx.get("/api/v1/label/job/values?start=5&end=4").body()).isEqualTo(ok("[]"));
    }

    @Test
    void seriesByGetOrFormPostInLabelOrder() throws Exception {
        String both = ok("[{\"__name__\":\"up\",\"instance\":\"a\",\"job\":\"node\"},{\"__name__\":\"up\",\"job\":\"api\",\"zone\":\"ü\"}]");
        assertThat(fx.get("/api/v1/series?match[]=up").body()).isEqualTo(both);
        assertThat(fx.postForm("/api/v1/series", "match[]=up&start=0&end=10").body()).isEqualTo(both);
        assertThat(fx.get("/api/v1/series?match[]=up&match[]=" + enc("{job=\"node\"}")).body()).isEqualTo(
                ok("[{\"__name__\":\"down\",\"job\":\"node\"},{\"__name__\":\"up\",\"instance\":\"a\",\"job\":\"node\"},"
                        + "{\"__name__\":\"up\",\"job\":\"api\",\"zone\":\"ü\"}]"));
        assertThat(fx.get("/api/v1/series?match[]=" + enc("{job=~\"n.*\",__name__!=\"up\"}")).body())
                .isEqualTo(ok("[{\"__name__\":\"down\",\"job\":\"node\"}]"));
        assertThat(fx.get("/api/v1/series?match[]=up&start=6").body()).isEqualTo(ok("[]"));
        HttpResponse<String> none = fx.get("/api/v1/series");
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(none.body()).contains("no match[] parameter provided");
    }

    @Test
    void seriesOverTheLimitIs422(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 1, new QueryOptions(1, 100, 300_000));
        fx.append(Map.of("__name__", "a", "i", "1"), new long[] {1}, new double[] {1});
        fx.append(Map.of("__name__", "a", "i", "2"), new long[] {1}, new double[] {1});
        HttpResponse<String> r = fx.get("/api/v1/series?match[]=a");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("\"errorType\":\"execution\"").contains("more than 1 series (query.max-series)");
        assertThat(fx.get("/api/v1/series?match[]=" + enc("a{i=\"2\"}")).statusCode()).isEqualTo(200);
        assertThat(fx.get("/api/v1/labels?start=0").body()).as("no series limit without match[]")
                .isEqualTo(ok("[\"__name__\",\"i\"]"));
    }
}
