package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.http.HttpServer;
import io.sluice.server.http.Router;
import io.sluice.tools.loadgen.PayloadWriter;
import io.sluice.server.query.QueryApi;
import io.sluice.server.config.QueryOptions;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sluice against a real Prometheus v3 on the same data. One generated data set (counters with resets,
 * gauges, classic histograms {@code _bucket{le}} with {@code _sum}/{@code _count}, NaN values, gaps longer
 * than the lookback, label churn) goes into Prometheus as OpenMetrics text through
 * {@code promtool tsdb create-blocks-from openmetrics} and into Sluice as remote-write records through a
 * real Kafka broker. Then:
 *
 * <ul>
 * <li>{@code promtool query instant|range|series|labels}, a real client, asks both servers and must print
 * the same, and what was produced;</li>
 * <li>queries generated from a small grammar (every binary operator, aggregation, function family and
 * modifier, nested) go to both HTTP APIs as instant and range queries; the results must agree: the same
 * status and error type, the same series, floats within Prometheus' test tolerance (relative 1e-6) or both NaN, in the same order
 * where Prometheus orders ({@code sort*}, {@code topk}/{@code bottomk} of an instant query); and
 * {@code format_query} and {@code parse_query} must answer the same bytes; a third of the queries run at
 * staleness edges (where a series starts, ends, or its last sample leaves the lookback window);</li>
 * <li>the rest of the HTTP API (labels, label values, series with {@code match[]}, times and
 * {@code limit}; errors of bad parameters; warnings, infos and escaped text) must answer the same bytes.</li>
 * </ul>
 *
 * <p>OpenMetrics cannot carry Prometheus' stale markers (a NaN written is an ordinary NaN), so staleness
 * is modelled in both data sets as a series that ends, or pauses for longer than the lookback delta.
 * The normal build runs {@value #DEFAULT_QUERIES} generated queries; {@code -Dpromql.diff.queries=N}
 * (the {@code promql-diff} profile sets 3000) runs more.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrometheusDifferentialTest {
    static final int DEFAULT_QUERIES = 150;
    private static final long STEP_MS = 15_000;
    private static final long SPAN_MS = 2 * 3_600_000;
    private static final double[] LE = {0.05, 0.1, 0.5, 1, 5};

    @TempDir
    static Path dir;
    private long t0;
    private List<EncodedSeries> data;
    private IngestInstance sluice;
    private HttpServer http;
    private ReferencePrometheus prometheus;
    private final int[] nonEmpty = new int[1];
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    void start() throws Exception {
        ReferencePrometheus.binaries(); // fails first, in one line, without a Go toolchain
        // Whole hours a few hours back: inside both servers' retention, in the past of their clocks.
        t0 = (System.currentTimeMillis() / 3_600_000 - 4) * 3_600_000;
        data = generate(new Random(14));
        prometheus = ReferencePrometheus.start(dir, openMetrics(data));

        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("promql-diff", 1);
            for (byte[] value : EncodedSeries.values(PayloadWriter.encoder(PayloadFormat.PROMETHEUS_REMOTE_WRITE), data)) {
                topics.sendAndWait(topic, 0, value);
            }
            String group = SharedKafka.unique("promql-diff");
            sluice = new IngestInstance(dir.resolve("sluice"), IngestInstance.headOptions(dir.resolve("sluice")),
                    TestTopics.config(group, Map.of(topic, PayloadFormat.PROMETHEUS_REMOTE_WRITE)));
            topics.awaitCommittedToEnd(group, topic, 1);
        }
        http = HttpServer.start("127.0.0.1", 0, QueryApi.addTo(new Router(), sluice.head, QueryOptions.DEFAULTS,
                sluice.registry, System::currentTimeMillis));
    }

    @AfterAll
    void stop() {
        if (http != null) {
            http.close();
        }
        if (sluice != null) {
            sluice.close();
        }
        if (prometheus != null) {
            prometheus.close();
        }
        client.close();
    }

    private String sluiceUrl() {
        return "http://127.0.0.1:" + http.address().getPort();
    }

    // ---------------------------------------------------------------- data

    private List<EncodedSeries> generate(Random rnd) {
        List<EncodedSeries> out = new ArrayList<>();
        int points = (int) (SPAN_MS / STEP_MS);
        for (String job : new String[] {"api", "db"}) {
            for (int inst = 0; inst < 3; inst++) {
                String instance = "host-" + inst;
                // A gauge (random walk; one series has NaNs, one pauses 20 minutes).
                double g = rnd.nextInt(100);
                List<long[]> samples = new ArrayList<>();
                for (int i = 0; i < points; i++) {
                    if (job.equals("db") && inst == 1 && i >= 200 && i < 280) {
                        continue; // a gap longer than the lookback delta: "stale" in both
                    }
                    g += rnd.nextInt(21) - 10 + rnd.nextInt(4) * 0.25;
                    double v = job.equals("api") && inst == 2 && i % 97 == 13 ? Double.NaN : g;
                    samples.add(new long[] {t0 + i * STEP_MS + rnd.nextInt(500), Double.doubleToRawLongBits(v)});
                }
                out.add(series(labels("d_gauge", "job", job, "instance", instance), samples));
                // Counters by code, with resets.
                for (String code : new String[] {"200", "500"}) {
                    double c = rnd.nextInt(1000);
                    samples = new ArrayList<>();
                    int end = job.equals("api") && inst == 0 && code.equals("500") ? points / 2 : points; // ends: stale
                    for (int i = 0; i < end; i++) {
                        c = rnd.nextInt(200) == 0 ? rnd.nextInt(5) : c + rnd.nextInt(code.equals("200") ? 50 : 3);
                        samples.add(new long[] {t0 + i * STEP_MS, Double.doubleToRawLongBits(c)});
                    }
                    out.add(series(labels("d_requests_total", "job", job, "instance", instance, "code", code), samples));
                }
                // A classic histogram.
                long[] counts = new long[LE.length + 1];
                double sum = 0;
                List<List<long[]>> buckets = new ArrayList<>();
                for (int b = 0; b <= LE.length; b++) {
                    buckets.add(new ArrayList<>());
                }
                List<long[]> sums = new ArrayList<>();
                List<long[]> totals = new ArrayList<>();
                for (int i = 0; i < points; i++) {
                    long ts = t0 + i * STEP_MS;
                    int n = rnd.nextInt(20);
                    for (int k = 0; k < n; k++) {
                        double latency = Math.exp(rnd.nextGaussian() - 1.5);
                        sum += latency;
                        for (int b = 0; b <= LE.length; b++) {
                            if (b == LE.length || latency <= LE[b]) {
                                counts[b]++;
                            }
                        }
                    }
                    for (int b = 0; b <= LE.length; b++) {
                        buckets.get(b).add(new long[] {ts, Double.doubleToRawLongBits(counts[b])});
                    }
                    sums.add(new long[] {ts, Double.doubleToRawLongBits(sum)});
                    totals.add(new long[] {ts, Double.doubleToRawLongBits(counts[LE.length])});
                }
                for (int b = 0; b <= LE.length; b++) {
                    String le = b == LE.length ? "+Inf" : LE[b] == Math.rint(LE[b]) ? Long.toString((long) LE[b]) : Double.toString(LE[b]);
                    out.add(series(labels("d_latency_seconds_bucket", "job", job, "instance", instance, "le", le), buckets.get(b)));
                }
                out.add(series(labels("d_latency_seconds_sum", "job", job, "instance", instance), sums));
                out.add(series(labels("d_latency_seconds_count", "job", job, "instance", instance), totals));
            }
        }
        // Label churn: pods that live 25 minutes each, one after another, overlapping 5 minutes.
        for (int pod = 0; pod < 6; pod++) {
            List<long[]> samples = new ArrayList<>();
            long from = t0 + pod * 20 * 60_000L;
            for (long ts = from; ts < Math.min(from + 25 * 60_000L, t0 + SPAN_MS); ts += STEP_MS) {
                samples.add(new long[] {ts, Double.doubleToRawLongBits(rnd.nextInt(10))});
            }
            out.add(series(labels("d_churn", "job", "api", "pod", "pod-" + pod), samples));
        }
        // Info series for info(): one per instance; api/host-1's team changes halfway (both series
        // overlap for the lookback, where the newer sample wins).
        for (String job : new String[] {"api", "db"}) {
            for (int inst = 0; inst < 3; inst++) {
                boolean changes = job.equals("api") && inst == 1;
                List<long[]> first = new ArrayList<>();
                List<long[]> second = new ArrayList<>();
                for (long ts = t0; ts < t0 + SPAN_MS; ts += STEP_MS) {
                    (changes && ts >= t0 + SPAN_MS / 2 ? second : first).add(new long[] {ts, Double.doubleToRawLongBits(1)});
                }
                out.add(series(labels("target_info", "job", job, "instance", "host-" + inst, "team", "t" + inst), first));
                if (changes) {
                    out.add(series(labels("target_info", "job", job, "instance", "host-" + inst, "team", "t" + inst + "b"), second));
                }
            }
        }
        // Values whose order differs between Go (UTF-8 bytes) and Java's String.compareTo (UTF-16 units):
        // U+E000 sorts before an emoji (a surrogate pair) in Go, after it in UTF-16.
        String[] values = {"z", "\uD83D\uDE00", "a", "\uE000", "\u00E4", "\uFFFD"};
        for (int i = 0; i < values.length; i++) {
            List<long[]> samples = new ArrayList<>();
            for (long ts = t0; ts < t0 + SPAN_MS; ts += STEP_MS) {
                samples.add(new long[] {ts, Double.doubleToRawLongBits(i)});
            }
            out.add(series(labels("d_order", "v", values[i]), samples));
        }
        return out;
    }

    private static Map<String, String> labels(String name, String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("__name__", name);
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    private static EncodedSeries series(Map<String, String> labels, List<long[]> samples) {
        long[] ts = new long[samples.size()];
        long[] bits = new long[samples.size()];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = samples.get(i)[0];
            bits[i] = samples.get(i)[1];
        }
        return new EncodedSeries(labels, ts, bits);
    }

    /** OpenMetrics text of the data set: families contiguous (no TYPE: every family "unknown"), times in seconds. */
    private static String openMetrics(List<EncodedSeries> data) {
        Map<String, StringBuilder> families = new TreeMap<>();
        for (EncodedSeries s : data) {
            StringBuilder sb = families.computeIfAbsent(s.labels().get("__name__"), n -> new StringBuilder());
            StringBuilder labels = new StringBuilder(s.labels().get("__name__")).append('{');
            boolean first = true;
            for (Map.Entry<String, String> e : s.labels().entrySet()) {
                if (!e.getKey().equals("__name__")) {
                    labels.append(first ? "" : ",").append(e.getKey()).append("=\"").append(e.getValue()).append('"');
                    first = false;
                }
            }
            labels.append("} ");
            for (int i = 0; i < s.timestampsMs().length; i++) {
                double v = Double.longBitsToDouble(s.valueBits()[i]);
                long ts = s.timestampsMs()[i];
                sb.append(labels).append(Double.isNaN(v) ? "NaN" : Double.toString(v)).append(' ')
                        .append(ts / 1000).append('.').append(String.format("%03d", ts % 1000)).append('\n');
            }
        }
        StringBuilder out = new StringBuilder();
        families.values().forEach(out::append);
        return out.append("# EOF\n").toString();
    }

    // ---------------------------------------------------------------- promtool

    private static String rfc3339(long ms) {
        return Instant.ofEpochMilli(ms).toString();
    }

    @Test
    void promtoolPrintsTheSameFromSluiceAsFromPrometheus() {
        long at = t0 + 3_600_000;
        List<List<String>> commands = List.of(
                List.of("query", "instant", "--time=" + rfc3339(at), "URL", "d_gauge{job=\"api\"}"),
                List.of("query", "instant", "--time=" + rfc3339(at), "URL", "sum by (job) (rate(d_requests_total[5m]))"),
                List.of("query", "instant", "--time=" + rfc3339(at), "URL",
                        "histogram_quantile(0.9, sum by (le) (rate(d_latency_seconds_bucket[10m])))"),
                List.of("query", "range", "--start=" + rfc3339(at), "--end=" + rfc3339(at + 600_000), "--step=1m", "URL",
                        "d_requests_total{instance=\"host-1\"}"),
                List.of("query", "series", "--match=d_churn", "--start=" + rfc3339(t0), "--end=" + rfc3339(t0 + SPAN_MS), "URL"),
                List.of("query", "labels", "--start=" + rfc3339(t0), "--end=" + rfc3339(t0 + SPAN_MS), "URL", "pod"));
        for (List<String> command : commands) {
            String fromSluice = ReferencePrometheus.promtool(command.stream().map(a -> a.equals("URL") ? sluiceUrl() : a).toList());
            String fromPrometheus = ReferencePrometheus.promtool(command.stream().map(a -> a.equals("URL") ? prometheus.url() : a).toList());
            assertThat(fromSluice).as("promtool %s", command).isNotBlank().isEqualTo(fromPrometheus);
        }
        // And what was produced: the gauge of api/host-0 at its first sample's time.
        EncodedSeries gauge = data.stream().filter(s -> s.labels().get("__name__").equals("d_gauge")
                && s.labels().get("job").equals("api") && s.labels().get("instance").equals("host-0")).findFirst().orElseThrow();
        long ts = gauge.timestampsMs()[10];
        String out = ReferencePrometheus.promtool(List.of("query", "instant", "--time=" + rfc3339(ts), sluiceUrl(),
                "d_gauge{job=\"api\",instance=\"host-0\"}"));
        String value = new java.math.BigDecimal(Double.longBitsToDouble(gauge.valueBits()[10])).stripTrailingZeros().toPlainString();
        assertThat(out.strip()).isEqualTo("d_gauge{instance=\"host-0\", job=\"api\"} => " + value + " @[" + ts / 1000 + "."
                + String.format("%03d", ts % 1000) + "]");
        String labels = ReferencePrometheus.promtool(List.of("query", "labels", sluiceUrl(), "pod"));
        assertThat(labels.strip().split("\n")).containsExactly("pod-0", "pod-1", "pod-2", "pod-3", "pod-4", "pod-5");
    }

    // ---------------------------------------------------------------- the HTTP API, byte for byte

    /**
     * What Grafana and promtool read besides query results: label names and values (with
     * {@code match[]}, a time range and {@code limit}), series (with {@code limit}), the warnings a
     * truncated answer carries, errors for bad parameters, and query answers with warnings, infos and
     * characters JSON encoders escape differently: the same status and bytes as Prometheus'.
     */
    @Test
    void apiAnswersAreThoseOfPrometheus() throws Exception {
        String all = "start=" + seconds(t0 - 3_600_000) + "&end=" + seconds(t0 + SPAN_MS + 3_600_000);
        String before = "start=" + seconds(t0 - 7_200_000) + "&end=" + seconds(t0 - 3_600_000);
        String at = "time=" + seconds(t0 + 3_600_000);
        String fractional = "time=" + seconds(t0 + 3_600_250);
        String range = "start=" + seconds(t0 + 3_600_000) + "&end=" + seconds(t0 + 3_900_000) + "&step=60";
        List<String> requests = List.of(
                "/api/v1/labels", "/api/v1/labels?" + all, "/api/v1/labels?" + before, "/api/v1/labels?limit=2",
                "/api/v1/labels?limit=6", "/api/v1/labels?match[]=d_churn", "/api/v1/labels?match[]=d_churn&match[]=d_gauge&" + all,
                "/api/v1/labels?match[]=d_churn&limit=1", "/api/v1/labels?match[]=d_nothing", "/api/v1/labels?limit=-1",
                "/api/v1/labels?limit=x", "/api/v1/labels?match[]={", "/api/v1/labels?start=x", "/api/v1/labels?start=20&end=10",
                "/api/v1/label/job/values", "/api/v1/label/job/values?" + all, "/api/v1/label/job/values?" + before,
                "/api/v1/label/__name__/values", "/api/v1/label/__name__/values?limit=3",
                "/api/v1/label/pod/values?match[]=d_churn&" + all, "/api/v1/label/pod/values?match[]=d_gauge",
                "/api/v1/label/instance/values?match[]=d_gauge{job=\"db\"}&match[]=d_churn&limit=2",
                "/api/v1/label/nope/values", "/api/v1/label/le/values?match[]={le=~\"0.*\"}", "/api/v1/label/job/values?limit=-5",
                "/api/v1/label/U__a_2e_b/values", "/api/v1/label/job/values?match[]=rate(x[5m])",
                "/api/v1/series?match[]=d_churn", "/api/v1/series?match[]=d_churn&limit=2", "/api/v1/series?match[]=d_churn&limit=6",
                "/api/v1/series?match[]=d_gauge{job=\"api\"}&match[]=d_churn{pod=\"pod-1\"}&" + all,
                "/api/v1/series?match[]=d_gauge&" + before, "/api/v1/series", "/api/v1/series?match[]={job=~\".*\"}",
                "/api/v1/series?match[]=d_gauge&limit=-1", "/api/v1/series?match[]=d_gauge&end=x",
                "/api/v1/query?" + at + "&query=d_gauge{job=\"api\"}", "/api/v1/query?" + at + "&query=d_churn&limit=1",
                "/api/v1/query?" + at + "&query=\"<%26>\"", "/api/v1/query?" + at + "&query=label_replace(d_churn, \"x\", \"<%26>\", \"\", \"\")",
                "/api/v1/query?" + at + "&query=rate(d_gauge[5m])", "/api/v1/query?" + at + "&query=quantile(2, d_churn)",
                "/api/v1/query?" + at + "&query=histogram_quantile(0.5, d_gauge)", "/api/v1/query?" + at + "&query=d_gauge >",
                "/api/v1/query?" + at + "&query=x{a=~\"<(\"}", "/api/v1/query?" + at + "&query=", "/api/v1/query?time=x&query=1",
                "/api/v1/query?" + at + "&query=1&timeout=x", "/api/v1/query?" + at + "&query=d_gauge&limit=-1",
                "/api/v1/query?" + at + "&query=d_gauge + on(job) d_gauge", "/api/v1/query?" + at + "&query=sum(d_gauge) by (job) @ 1e300",
                "/api/v1/query_range?" + range + "&query=d_churn", "/api/v1/query_range?" + range + "&query=count(d_churn)&limit=1",
                "/api/v1/query_range?" + range + "&query=rate(d_churn[5m])", "/api/v1/query_range?" + range + "&query=\"a\"",
                "/api/v1/query_range?start=1&end=100000&step=1&query=1", "/api/v1/query_range?start=10&end=1&step=1&query=1",
                "/api/v1/query_range?start=1&end=10&step=0&query=1", "/api/v1/query_range?start=1&end=10&step=-1&query=1",
                "/api/v1/query_range?start=1&end=10&query=1", "/api/v1/query_range?start=1&end=10&step=x&query=1",
                "/api/v1/label/v/values", "/api/v1/label/v/values?match[]=d_order", "/api/v1/series?match[]=d_order",
                "/api/v1/query?" + at + "&query=sort_by_label(d_order, \"nope\")",
                "/api/v1/query_range?start=" + seconds(t0 + SPAN_MS / 2 - 600_000) + "&end=" + seconds(t0 + SPAN_MS / 2 + 600_000)
                        + "&step=60&query=info(d_gauge)",
                "/api/v1/query_range?" + range + "&query=info(d_gauge, {team=~\"t[01]\"})",
                "/api/v1/query?" + at + "&query=sort_by_label(info(d_gauge), \"job\", \"instance\")",
                "/api/v1/query?" + at + "&query=sort_by_label(count by (team) (info(d_requests_total, {team=~\".+\"})), \"team\")",
                "/api/v1/query_range?" + range + "&query=info(rate(d_requests_total[5m]))",
                "/api/v1/query_range?" + range + "&query=info({job=\"db\"}, {__name__=~\".+_info\"})",
                // scalars and strings: Prometheus writes them through encoding/json, not its sample codec
                "/api/v1/query?" + fractional + "&query=1e-7", "/api/v1/query?" + fractional + "&query=-1e21",
                "/api/v1/query?" + fractional + "&query=2^-1074", "/api/v1/query?" + fractional + "&query=time()",
                "/api/v1/query?" + fractional + "&query=\"s\"", "/api/v1/query?" + fractional + "&query=vector(1e-7)",
                "/api/v1/query?time=0.001&query=1.5", "/api/v1/query?time=-1.5&query=1.5",
                "/api/v1/query?time=" + rfc3339(t0 + 3_600_500) + "&query=d_gauge{job=\"api\"}",
                "/api/v1/query?time=" + rfc3339(t0 + 3_600_000) + "&query=time()",
                "/api/v1/query_range?start=" + rfc3339(t0 + 3_600_000) + "&end=" + rfc3339(t0 + 3_900_000) + "&step=1m&query=count(d_gauge)",
                "/api/v1/query_range?start=" + seconds(t0 + 3_600_250) + "&end=" + seconds(t0 + 3_602_000) + "&step=0.5&query=count(d_gauge)",
                "/api/v1/query_range?" + range + "&query=time()", "/api/v1/query_range?" + range + "&query=1e-7",
                "/api/v1/query?" + at + "&query=sum(", "/api/v1/query?" + at + "&query=rate(d_gauge)",
                "/api/v1/query?" + at + "&query=d_gauge[5m] + 1", "/api/v1/query?" + at + "&query=d_gauge offset",
                "/api/v1/query?" + at + "&query=histogram_quantile(\"a\", d_gauge)", "/api/v1/query?" + at + "&query=nosuchfn(d_gauge)",
                "/api/v1/query?" + at + "&query=d_gauge{job=~\"(\"}", "/api/v1/query?" + at + "&query={job=~\".*\"}",
                "/api/v1/query?" + at + "&query=d_gauge + on(job) d_gauge{instance=\"host-0\"}",
                "/api/v1/query?" + at + "&query=label_replace(d_gauge, \"1x\", \"a\", \"\", \"\")",
                "/api/v1/query?" + at + "&query=d_gauge @ end()", "/api/v1/query?" + at + "&query=sum_over_time(d_gauge[5m:30s])",
                "/api/v1/query?" + at + "&query=absent(d_nothing{job=\"x\"})", "/api/v1/query?" + at + "&query=d_gauge[1m]",
                "/api/v1/query?" + at + "&query=d_gauge&timeout=5s", "/api/v1/query?" + at + "&query=d_gauge&timeout=0.5",
                "/api/v1/query?" + at + "&query=sort_by_label(count_values(\"v\", d_gauge ^ -7), \"v\")",
                "/api/v1/series?match[]=d_churn&start=" + rfc3339(t0) + "&end=" + rfc3339(t0 + 600_000),
                "/api/v1/metadata", "/api/v1/metadata?metric=d_gauge", "/api/v1/metadata?limit=1",
                "/api/v1/query_exemplars?query=d_gauge&" + all,
                "/api/v1/query?" + at + "&query=1.2 ^ 3", "/api/v1/query?" + at + "&query=d_gauge ^ 3",
                "/api/v1/query?" + at + "&query=d_gauge ^ -7", "/api/v1/query?" + at + "&query=log10(vector(1e15))",
                "/api/v1/query?" + at + "&query=ln(d_gauge > 0)", "/api/v1/query?" + at + "&query=log10(d_gauge > 0)",
                "/api/v1/query?" + at + "&query=sort_by_label_desc(d_order, \"nope\")",
                "/api/v1/query?" + at + "&query=sort_by_label(d_order{v=~\".\"}, \"v\")",
                "/api/v1/query?" + at + "&query=sort_by_label(d_order{v=~\"[^a-z]\"}, \"v\")",
                "/api/v1/query?" + at + "&query=sort_by_label(label_replace(d_order, \"w\", \"<$1>\", \"v\", \"(.)\"), \"w\")",
                "/api/v1/query?" + at + "&query=sort_by_label(d_order{v=~\"\\\\x{1F600}|\\\\x{E000}\"}, \"v\")",
                "/api/v1/query_range?" + range + "&query=d_order", "/api/v1/query_range?" + range + "&query=sum by (v) (d_order)",
                "/api/v1/format_query?query=foo{a=\"<\"}", "/api/v1/format_query?query=foo{", "/api/v1/parse_query?query=\"<%26>\"");
        List<String> mismatches = new ArrayList<>();
        for (String request : requests) {
            for (boolean get : new boolean[] {true, false}) {
                if (!get && request.startsWith("/api/v1/label/")) {
                    continue; // Prometheus answers label values to GET only (405); Sluice to POST as well
                }
                HttpResponse<String> ours = call(sluiceUrl(), request, get);
                HttpResponse<String> theirs = call(prometheus.url(), request, get);
                boolean bothRefuseTheMethod = ours.statusCode() == 405 && theirs.statusCode() == 405; // bodies: our text, its router's
                if (ours.statusCode() != theirs.statusCode() || !(bothRefuseTheMethod || ours.body().equals(theirs.body()))) {
                    mismatches.add((get ? "GET " : "POST ") + request + "\n    " + ours.statusCode() + " " + ours.body()
                            + "\n vs " + theirs.statusCode() + " " + theirs.body());
                }
            }
        }
        assertThat(mismatches).as("API answers that differ from Prometheus'").isEmpty();
    }

    /** {@code request}, a path with a query string of raw values (encoded here), as GET or as a POST form. */
    private HttpResponse<String> call(String base, String request, boolean get) throws Exception {
        int q = request.indexOf('?');
        String path = q < 0 ? request : request.substring(0, q);
        StringBuilder form = new StringBuilder();
        if (q >= 0) {
            for (String pair : request.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                String value = java.net.URLDecoder.decode(pair.substring(eq + 1).replace("+", "%2B"), StandardCharsets.UTF_8);
                form.append(form.isEmpty() ? "" : "&").append(URLEncoder.encode(pair.substring(0, eq), StandardCharsets.UTF_8))
                        .append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
            }
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path + (get && !form.isEmpty() ? "?" + form : "")))
                .timeout(Duration.ofSeconds(60));
        if (!get) {
            b.header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form.toString()));
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    // ---------------------------------------------------------------- generated queries

    @Test
    void generatedQueriesAgreeWithPrometheus() throws Exception {
        String show = System.getProperty("promql.diff.show"); // "QUERY|PATH|PARAMS": print both answers
        for (String one : show == null ? new String[0] : show.split(";;")) {
            String[] p = one.split("\\|");
            String form = "query=" + URLEncoder.encode(p[0], StandardCharsets.UTF_8) + "&" + p[2];
            System.out.println("QUERY      " + p[0]);
            System.out.println("SLUICE     " + post(sluiceUrl() + p[1], form).body());
            System.out.println("PROMETHEUS " + post(prometheus.url() + p[1], form).body());
        }
        int n = Integer.getInteger("promql.diff.queries", DEFAULT_QUERIES);
        QueryGrammar grammar = new QueryGrammar(new Random(Long.getLong("promql.diff.seed", 1414)), t0 / 1000);
        List<String> mismatches = new ArrayList<>();
        nonEmpty[0] = 0;
        int compared = 0;
        long[] edges = stalenessEdges();
        for (int i = 0; i < n; i++) {
            String q = grammar.query();
            // A third of the queries at (or a step grid through) a time where a series starts, ends or comes
            // back, or where its last sample leaves the lookback window, to a millisecond either side.
            boolean edge = grammar.rnd.nextInt(3) == 0;
            long at = edge ? edges[grammar.rnd.nextInt(edges.length)] : t0 + 600_000 + grammar.rnd.nextLong(SPAN_MS - 600_000);
            compare(q, "/api/v1/query", "time=" + seconds(at), mismatches);
            long step = 60 + grammar.rnd.nextInt(240);
            long start = edge ? at - step * 1000 * grammar.rnd.nextInt(20) : t0 + grammar.rnd.nextLong(SPAN_MS / 2);
            compare(q, "/api/v1/query_range", "start=" + seconds(start) + "&end=" + seconds(start + 3_600_000) + "&step=" + step,
                    mismatches);
            compared += 2;
            for (String path : new String[] {"/api/v1/format_query", "/api/v1/parse_query"}) {
                String form = "query=" + URLEncoder.encode(q, StandardCharsets.UTF_8);
                HttpResponse<String> ours = post(sluiceUrl() + path, form);
                HttpResponse<String> theirs = post(prometheus.url() + path, form);
                boolean bothRefuseTheMethod = ours.statusCode() == 405 && theirs.statusCode() == 405; // bodies: our text, its router's
                if (ours.statusCode() != theirs.statusCode() || !(bothRefuseTheMethod || ours.body().equals(theirs.body()))) {
                    mismatches.add(path + " " + q + "\n    " + ours.body() + "\n vs " + theirs.body());
                }
            }
        }
        assertThat(mismatches).as("of %d queries, those whose answers differ from Prometheus'", compared).isEmpty();
        assertThat(nonEmpty[0]).as("queries with a non-empty answer from both: the grammar must mostly make results")
                .isGreaterThan(compared / 2);
    }

    /**
     * Staleness edges of the data: each series' first sample, the end of its lookback window after its last
     * sample and after each sample followed by a gap longer than the lookback, and the sample after such a
     * gap; each a millisecond before, at and after.
     */
    private long[] stalenessEdges() {
        java.util.TreeSet<Long> edges = new java.util.TreeSet<>();
        long lookback = 300_000;
        for (EncodedSeries s : data) {
            long[] ts = s.timestampsMs();
            List<Long> at = new ArrayList<>(List.of(ts[0], ts[ts.length - 1] + lookback));
            for (int i = 1; i < ts.length; i++) {
                if (ts[i] - ts[i - 1] > lookback) {
                    at.add(ts[i - 1] + lookback);
                    at.add(ts[i]);
                }
            }
            for (long t : at) {
                for (long d = -1; d <= 1; d++) {
                    edges.add(t + d);
                }
            }
        }
        return edges.stream().mapToLong(Long::longValue).toArray();
    }

    private static String seconds(long ms) {
        return ms / 1000 + "." + String.format("%03d", ms % 1000);
    }

    private void compare(String query, String path, String params, List<String> mismatches) throws Exception {
        String form = "query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + "&" + params;
        HttpResponse<String> ours = post(sluiceUrl() + path, form);
        HttpResponse<String> theirs = post(prometheus.url() + path, form);
        String diff = ResultComparison.diff(query, path.endsWith("query"), ours.statusCode(), ours.body(), theirs.statusCode(), theirs.body());
        if (ours.statusCode() == 200 && !ours.body().contains("\"result\":[]")) {
            nonEmpty[0]++;
        }
        if (diff != null) {
            mismatches.add(path + "?" + params + " " + query + "\n    " + diff);
        }
    }

    private HttpResponse<String> post(String url, String form) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
