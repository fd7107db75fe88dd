package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.config.QueryOptions;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/v1/export} over real HTTP against a real head: the JSON lines format, selection, streaming, limits. */
class ExportRouteTest {
    static final double STALE = Double.longBitsToDouble(0x7ff0000000000002L);

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

    @Test
    void specialValuesAreStringsAndFiniteOnesShortestNumbers() throws Exception {
        fx.append(Map.of("__name__", "special", "job", "a"),
                new long[] {1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000},
                new double[] {1.5, Double.NaN, STALE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0,
                        Double.MIN_VALUE, 1e21, 0.1, 1e-7, -42});
        HttpResponse<String> r = fx.get("/api/v1/export?match[]=special");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).contains(ExportRoute.CONTENT_TYPE);
        assertThat(r.body()).isEqualTo("{\"metric\":{\"__name__\":\"special\",\"job\":\"a\"},\"values\":[1.5,\"NaN\",\"NaN\","
                + "\"+Inf\",\"-Inf\",-0,5e-324,1e+21,0.1,1e-07,-42],"
                + "\"timestamps\":[1000,2000,3000,4000,5000,6000,7000,8000,9000,10000,11000]}\n");
    }

    @Test
    void utf8AndEscapedLabelValuesAreValidJson() throws Exception {
        fx.append(Map.of("__name__", "m", "v", "ü ✓ \"q\" \\ <&> \n\t\u0001 \u2028"), new long[] {1}, new double[] {2});
        HttpResponse<String> r = fx.get("/api/v1/export?match[]=" + enc("m{v=~\".+\"}"));
        assertThat(r.body()).isEqualTo("{\"metric\":{\"__name__\":\"m\",\"v\":\"ü ✓ \\\"q\\\" \\\\ \\u003c\\u0026\\u003e \\n\\t"
                + "\\u0001 \\u2028\"},\"values\":[2],\"timestamps\":[1]}\n");
    }

    @Test
    void severalMatchersAreAUnionInLabelOrderWithoutDuplicates() throws Exception {
        for (String job : new String[] {"c", "a", "b"}) {
            fx.append(Map.of("__name__", "up", "job", job), new long[] {10}, new double[] {1});
        }
        fx.append(Map.of("__name__", "other"), new long[] {10}, new double[] {1});
        HttpResponse<String> r = fx.get("/api/v1/export?match[]=" + enc("up{job=~\"a|b\"}") + "&match[]="
                + enc("{job=\"b\"}") + "&match[]=" + enc("{__name__=\"up\",job!~\"a|b\"}") + "&match[]=nothing");
        assertThat(r.body().lines().map(l -> l.substring(0, l.indexOf("},")))).containsExactly(
                "{\"metric\":{\"__name__\":\"up\",\"job\":\"a\"", "{\"metric\":{\"__name__\":\"up\",\"job\":\"b\"",
                "{\"metric\":{\"__name__\":\"up\",\"job\":\"c\"");
    }

    @Test
    void startAndEndAreInclusiveInSecondsOrRfc3339() throws Exception {
        fx.append(Map.of("__name__", "t"), new long[] {999, 1000, 1500, 2000, 2001}, new double[] {1, 2, 3, 4, 5});
        assertThat(fx.get("/api/v1/export?match[]=t&start=1&end=2").body()).endsWith("\"timestamps\":[1000,1500,2000]}\n");
        assertThat(fx.get("/api/v1/export?match[]=t&start=1.5&end=" + enc("1970-01-01T00:00:02.001Z")).body())
                .endsWith("\"values\":[3,4,5],\"timestamps\":[1500,2000,2001]}\n");
        assertThat(fx.get("/api/v1/export?match[]=t&start=3").body()).isEmpty();
    }

    @Test
    void badParametersAre400WithPrometheusErrorJson() throws Exception {
        HttpResponse<String> none = fx.get("/api/v1/export");
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(none.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"no match[] parameter provided\"}");
        assertThat(fx.get("/api/v1/export?match[]=" + enc("rate(x[5m])")).body())
                .contains("invalid parameter \\\"match[]\\\": 1:5: parse error: unexpected \\\"(\\\"");
        assertThat(fx.get("/api/v1/export?match[]=x&start=yesterday").body())
                .contains("invalid parameter \\\"start\\\": invalid time value for 'start': cannot parse \\\"yesterday\\\" to a valid timestamp");
        assertThat(fx.get("/api/v1/export?match[]=x&start=5&end=4").statusCode()).isEqualTo(400);
        assertThat(fx.get("/api/v1/export?match[]=" + enc("{a=\"\"}")).body())
                .contains("match[] must contain at least one non-empty matcher");
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"bad_data\"} 5.0");
    }

    @Test
    void aLargeExportIsStreamedInChunksAndComplete() throws Exception {
        Random random = new Random(42);
        int series = 40;
        int samples = 500;
        for (int s = 0; s < series; s++) {
            long[] ts = new long[samples];
            double[] vs = new double[samples];
            for (int i = 0; i < samples; i++) {
                ts[i] = 1_000L * (i + 1) + random.nextInt(500);
                vs[i] = random.nextGaussian() * 1e6;
            }
            fx.submit(Map.of("__name__", "big", "s", String.format("%03d", s)), ts, vs);
        }
        fx.awaitApplied();
        HttpResponse<String> r = fx.get("/api/v1/export?match[]=big");
        assertThat(r.headers().firstValue("transfer-encoding")).contains("chunked");
        assertThat(r.headers().firstValue("content-length")).isEmpty();
        assertThat(r.body().length()).isGreaterThan(4 * 64 * 1024);
        String[] lines = r.body().split("\n");
        assertThat(lines).hasSize(series);
        Random check = new Random(42);
        for (int s = 0; s < series; s++) {
            StringBuilder values = new StringBuilder();
            StringBuilder stamps = new StringBuilder();
            for (int i = 0; i < samples; i++) {
                stamps.append(i == 0 ? "" : ",").append(1_000L * (i + 1) + check.nextInt(500));
                values.append(i == 0 ? "" : ",").append(PromFloat.format(check.nextGaussian() * 1e6));
            }
            assertThat(lines[s]).isEqualTo("{\"metric\":{\"__name__\":\"big\",\"s\":\"" + String.format("%03d", s)
                    + "\"},\"values\":[" + values + "],\"timestamps\":[" + stamps + "]}");
        }
    }

    @Test
    void limitsAnswer422AndAreCounted(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 2, new QueryOptions(2, 5, 300_000));
        for (int s = 0; s < 3; s++) {
            fx.append(Map.of("__name__", "lim", "s", Integer.toString(s)), new long[] {1, 2}, new double[] {1, 2});
        }
        HttpResponse<String> series = fx.get("/api/v1/export?match[]=lim");
        assertThat(series.statusCode()).isEqualTo(422);
        assertThat(series.body()).startsWith("{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query selects 3 series, "
                + "more than 2 (query.max-series)");
        fx.append(Map.of("__name__", "many"), new long[] {1, 2, 3, 4, 5, 6}, new double[] {1, 2, 3, 4, 5, 6});
        assertThat(fx.get("/api/v1/export?match[]=" + enc("lim{s=~\"0|1\"}")).statusCode()).isEqualTo(200);
        HttpResponse<String> samples = fx.get("/api/v1/export?match[]=many");
        assertThat(samples.statusCode()).isEqualTo(422);
        assertThat(samples.body()).contains("more than 5 samples (query.max-samples)");
        String scrape = fx.registry.scrape();
        assertThat(scrape).contains("sluice_query_rejected_total{reason=\"max_series\"} 1.0")
                .contains("sluice_query_rejected_total{reason=\"max_samples\"} 1.0")
                .contains("sluice_query_duration_seconds_count{endpoint=\"export\"} 3");
    }

    @Test
    void aSampleLimitPassedAfterTheFirstChunkCutsTheTransfer(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 2, new QueryOptions(1000, 20_000, 300_000));
        long[] ts = new long[1000];
        double[] vs = new double[1000];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = 1_000_000L + i;
            vs[i] = i;
        }
        for (int s = 0; s < 40; s++) {
            fx.submit(Map.of("__name__", "cut", "s", Integer.toString(s)), ts, vs);
        }
        fx.awaitApplied();
        // 40,000 samples, about 14 bytes each: the 20,001st comes long after the first 64 KiB chunk left
        assertThatThrownBy(() -> fx.get("/api/v1/export?match[]=cut")).isInstanceOf(java.io.IOException.class);
        assertThat(fx.registry.scrape()).contains("sluice_query_rejected_total{reason=\"max_samples\"} 1.0");
        assertThat(fx.get("/api/v1/export?match[]=" + enc("cut{s=~\"1.\"}")).body().lines()).hasSize(10);
    }
}
