package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.server.TestHttp;
import io.sluice.server.format.SeriesTextSink;
import io.sluice.server.http.HttpServer;
import io.sluice.server.http.Router;
import io.sluice.server.query.QueryApi;
import io.sluice.server.config.QueryOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads what a head stores back through the Prometheus-compatible HTTP API on a real port, as a user
 * would with curl: {@code /api/v1/export} (JSON lines) and {@code /api/v1/query}. Lines are in the form
 * of {@link SeriesTextSink} with the value as {@link #valueKey}: the export renders every NaN as "NaN",
 * so NaN payloads (the stale marker included) can only be compared as NaN here.
 */
final class HttpReadBack implements AutoCloseable {
    private final HttpServer http;

    HttpReadBack(Head head, MeterRegistry registry) {
        try {
            http = HttpServer.start("127.0.0.1", 0, QueryApi.addTo(new Router(), head, QueryOptions.DEFAULTS, registry,
                    System::currentTimeMillis));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every sample of the series {@code selector} selects, through the export, as lines with
     * {@link #valueKey}s, series by series; checks each series' timestamps increase.
     */
    @SuppressWarnings("unchecked")
    List<String> export(String selector) {
        String body = get("/api/v1/export?match[]=" + enc(selector));
        List<String> lines = new ArrayList<>();
        for (String json : body.split("\n")) {
            if (json.isEmpty()) {
                continue;
            }
            Map<String, Object> series = (Map<String, Object>) MiniJson.parse(json);
            String labels = SeriesTextSink.text((Map<String, String>) (Map<?, ?>) series.get("metric"));
            List<Object> values = (List<Object>) series.get("values");
            List<Object> timestamps = (List<Object>) series.get("timestamps");
            assertThat(values).hasSameSizeAs(timestamps);
            long previous = Long.MIN_VALUE;
            for (int i = 0; i < values.size(); i++) {
                long t = Long.parseLong(((MiniJson.Num) timestamps.get(i)).text());
                assertThat(t).as("time order in %s", labels).isGreaterThan(previous);
                previous = t;
                lines.add(labels + " " + t + " " + valueKey(parseValue(values.get(i))));
            }
        }
        return lines;
    }

    /** An instant query's vector as "labels value" strings, sorted. */
    @SuppressWarnings("unchecked")
    List<String> instant(String query, long timeMs) {
        String body = get("/api/v1/query?query=" + enc(query) + "&time=" + timeMs / 1000 + "." + String.format("%03d", timeMs % 1000));
        Map<String, Object> answer = (Map<String, Object>) MiniJson.parse(body);
        assertThat(answer.get("status")).as(body).isEqualTo("success");
        Map<String, Object> data = (Map<String, Object>) answer.get("data");
        assertThat(data.get("resultType")).isEqualTo("vector");
        List<String> out = new ArrayList<>();
        for (Object r : (List<Object>) data.get("result")) {
            Map<String, Object> sample = (Map<String, Object>) r;
            List<Object> value = (List<Object>) sample.get("value");
            out.add(SeriesTextSink.text(new TreeMap<>((Map<String, String>) (Map<?, ?>) sample.get("metric"))) + " " + value.get(1));
        }
        return out.stream().sorted().toList();
    }

    /** The stored form of a sample's value that the export can show: NaN, or the value's bits in hex. */
    static String valueKey(double value) {
        return Double.isNaN(value) ? "NaN" : Long.toHexString(Double.doubleToRawLongBits(value));
    }

    /** A {@link SeriesTextSink} line (value as hex bits) in the export's form. */
    static String exportForm(String line) {
        int at = line.lastIndexOf(' ');
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(line.substring(at + 1), 16));
        return line.substring(0, at + 1) + valueKey(value);
    }

    private static double parseValue(Object v) {
        if (v instanceof String text) {
            return switch (text) {
                case "NaN" -> Double.NaN;
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> throw new AssertionError("unexpected value string " + text);
            };
        }
        return Double.parseDouble(((MiniJson.Num) v).text());
    }

    private String get(String path) {
        try {
            HttpResponse<String> r = TestHttp.get(http.address(), path);
            assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        http.close();
    }
}
