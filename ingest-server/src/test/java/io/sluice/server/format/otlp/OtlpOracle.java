package io.sluice.server.format.otlp;

import static io.sluice.server.format.SeriesTextSink.line;

import io.sluice.server.format.SeriesTextSink;
import io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality;
import io.sluice.server.format.otlp.pb.OtlpMetrics.AnyValue;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExportMetricsServiceRequest;
import io.sluice.server.format.otlp.pb.OtlpMetrics.HistogramDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.KeyValue;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Metric;
import io.sluice.server.format.otlp.pb.OtlpMetrics.NumberDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ResourceMetrics;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ScopeMetrics;
import io.sluice.server.format.otlp.pb.OtlpMetrics.SummaryDataPoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random OTLP requests over a vocabulary whose Prometheus names are written out in tables, and
 * an independent, plain model of the mapping that says which lines ({@link SeriesTextSink}) they must
 * decode to. The tables, not a second copy of the naming code, are the reference.
 */
final class OtlpOracle {
    /** name, unit, then the Prometheus name as a gauge, a counter, and anything else. */
    private static final String[][] METRICS = {
        {"http.server.duration", "s", "http_server_duration_seconds", "http_server_duration_seconds_total", "http_server_duration_seconds"},
        {"queue.size", "{item}", "queue_size", "queue_size_total", "queue_size"},
        {"cpu.utilization", "1", "cpu_utilization_ratio", "cpu_utilization_total", "cpu_utilization"},
        {"net.io", "By/s", "net_io_bytes_per_second", "net_io_bytes_per_second_total", "net_io_bytes_per_second"},
        {"requests_total", "", "requests_total", "requests_total", "requests_total"},
        {"temp", "Cel", "temp_celsius", "temp_celsius_total", "temp_celsius"},
    };
    /** Attribute key and its label name. */
    private static final String[][] KEYS = {
        {"host", "host"}, {"http.method", "http_method"}, {"a.b", "a_b"}, {"a_b", "a_b"}, {"9x", "key_9x"},
        {"ünï", "_n_"}, {"__x__", "__x__"}, {"k8s.pod.name", "k8s_pod_name"},
    };
    private static final double[] BOUNDS = {1e-9, 0.005, 0.25, 1, 2.5, 10, 123456789.125, 1e21};
    private static final String[] BOUND_TEXTS = {"0.000000001", "0.005", "0.25", "1", "2.5", "10", "123456789.125",
        "1000000000000000000000"};
    private static final double[] QUANTILES = {0, 0.5, 0.9, 0.99, 1};
    private static final String[] QUANTILE_TEXTS = {"0", "0.5", "0.9", "0.99", "1"};
    private static final double STALE = Double.longBitsToDouble(OtlpPoints.STALE_NAN_BITS);

    private OtlpOracle() {
    }

    // ---- random requests ----

    static ExportMetricsServiceRequest randomRequest(Random random) {
        ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
        for (int r = 1 + random.nextInt(3); r > 0; r--) {
            ResourceMetrics.Builder resource = ResourceMetrics.newBuilder();
            var attributes = resource.getResourceBuilder();
            if (random.nextBoolean()) {
                attributes.addAttributes(OtlpBuilders.attr("service.name", "svc" + random.nextInt(3)));
            }
            if (random.nextBoolean()) {
                attributes.addAttributes(OtlpBuilders.attr("service.namespace", random.nextBoolean() ? "ns" : ""));
            }
            if (random.nextBoolean()) {
                attributes.addAttributes(OtlpBuilders.attr("service.instance.id", "i-" + random.nextInt(9)));
            }
            attributes.addAllAttributes(randomAttributes(random));
            for (int s = 1 + random.nextInt(2); s > 0; s--) {
                ScopeMetrics.Builder scope = resource.addScopeMetricsBuilder();
                if (random.nextBoolean()) {
                    scope.setScope(OtlpBuilders.scope("lib" + random.nextInt(2), random.nextBoolean() ? "1.0" : "",
                            OtlpBuilders.attr("tier", random.nextBoolean() ? "gold" : "")));
                }
                for (int m = random.nextInt(6); m > 0; m--) {
                    scope.addMetrics(randomMetric(random));
                }
            }
            request.addResourceMetrics(resource);
        }
        return request.build();
    }

    private static List<KeyValue> randomAttributes(Random random) {
        List<KeyValue> attributes = new ArrayList<>();
        for (int a = random.nextInt(5); a > 0; a--) {
            String key = KEYS[random.nextInt(KEYS.length)][0];
            attributes.add(switch (random.nextInt(5)) {
                case 0 -> OtlpBuilders.attr(key, OtlpBuilders.bool(random.nextBoolean()));
                case 1 -> OtlpBuilders.attr(key, OtlpBuilders.integer(random.nextInt(2000) - 1000));
                default -> OtlpBuilders.attr(key, io.sluice.server.format.SpecialValues.text(random));
            });
        }
        return attributes;
    }

    private static Metric randomMetric(Random random) {
        String[] names = METRICS[random.nextInt(METRICS.length)];
        Metric.Builder metric = Metric.newBuilder().setName(names[0]).setUnit(names[1]);
        AggregationTemporality temporality = random.nextInt(5) == 0 ? AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
                : AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
        int points = random.nextInt(4);
        switch (random.nextInt(5)) {
            case 0 -> {
                var gauge = metric.getGaugeBuilder();
                for (int p = 0; p < points; p++) {
                    gauge.addDataPoints(randomNumberPoint(random));
                }
            }
            case 1 -> {
                var sum = metric.getSumBuilder().setIsMonotonic(random.nextBoolean()).setAggregationTemporality(temporality);
                for (int p = 0; p < points; p++) {
                    sum.addDataPoints(randomNumberPoint(random));
                }
            }
            case 2 -> {
                var histogram = metric.getHistogramBuilder().setAggregationTemporality(temporality);
                for (int p = 0; p < points; p++) {
                    histogram.addDataPoints(randomHistogramPoint(random));
                }
            }
            case 3 -> {
                var summary = metric.getSummaryBuilder();
                for (int p = 0; p < points; p++) {
                    summary.addDataPoints(randomSummaryPoint(random));
                }
            }
            default -> metric.getExponentialHistogramBuilder().setAggregationTemporality(temporality)
                    .addDataPointsBuilder().setCount(random.nextInt(9)).setScale(random.nextInt(8));
        }
        return metric.build();
    }

    private static long randomTimeNanos(Random random) {
        return random.nextInt(4) == 0 ? random.nextLong() : 1_763_800_000_000_000_000L + random.nextLong(1_000_000_000_000L);
    }

    private static NumberDataPoint randomNumberPoint(Random random) {
        NumberDataPoint.Builder point = NumberDataPoint.newBuilder().setTimeUnixNano(randomTimeNanos(random))
                .addAllAttributes(randomAttributes(random));
        switch (random.nextInt(6)) {
            case 0 -> point.setAsInt(random.nextLong());
            case 1 -> point.setFlags(1);
            default -> point.setAsDouble(io.sluice.server.format.SpecialValues.value(random));
        }
        return point.build();
    }

    private static HistogramDataPoint randomHistogramPoint(Random random) {
        HistogramDataPoint.Builder point = HistogramDataPoint.newBuilder().setTimeUnixNano(randomTimeNanos(random))
                .addAllAttributes(randomAttributes(random)).setCount(random.nextInt(1_000_000));
        if (random.nextBoolean()) {
            point.setSum(random.nextDouble() * 1e6);
        }
        if (random.nextInt(5) != 0) {
            int from = random.nextInt(BOUNDS.length);
            for (int b = from; b < BOUNDS.length; b++) {
                point.addExplicitBounds(BOUNDS[b]).addBucketCounts(random.nextInt(1000));
            }
            point.addBucketCounts(random.nextInt(1000));
        }
        if (random.nextInt(6) == 0) {
            point.setFlags(1);
        }
        return point.build();
    }

    private static SummaryDataPoint randomSummaryPoint(Random random) {
        SummaryDataPoint.Builder point = SummaryDataPoint.newBuilder().setTimeUnixNano(randomTimeNanos(random))
                .addAllAttributes(randomAttributes(random)).setCount(random.nextInt(1000)).setSum(random.nextDouble());
        for (int q = 0; q < QUANTILES.length; q++) {
            if (random.nextBoolean()) {
                point.addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(QUANTILES[q])
                        .setValue(io.sluice.server.format.SpecialValues.value(random)));
            }
        }
        return point.build();
    }

    // ---- the expected series ----

    static List<String> expectedLines(ExportMetricsServiceRequest request) {
        List<String> lines = new ArrayList<>();
        for (ResourceMetrics resource : request.getResourceMetricsList()) {
            Map<String, String> identity = new LinkedHashMap<>();
            List<String[]> others = new ArrayList<>();
            String name = null;
            String namespace = "";
            for (KeyValue kv : resource.getResource().getAttributesList()) {
                switch (kv.getKey()) {
                    case "service.name" -> name = text(kv.getValue());
                    case "service.namespace" -> namespace = text(kv.getValue());
                    case "service.instance.id" -> identity.put("instance", text(kv.getValue()));
                    default -> others.add(new String[] {kv.getKey(), text(kv.getValue())});
                }
            }
            if (name != null) {
                identity.put("job", namespace.isEmpty() ? name : namespace + "/" + name);
            }
            long[] latest = {Long.MIN_VALUE};
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                List<String[]> scopeLabels = new ArrayList<>();
                if (scope.hasScope()) {
                    for (KeyValue kv : scope.getScope().getAttributesList()) {
                        scopeLabels.add(new String[] {"otel_scope_" + kv.getKey(), text(kv.getValue())});
                    }
                    scopeLabels.add(new String[] {"otel_scope_name", scope.getScope().getName()});
                    scopeLabels.add(new String[] {"otel_scope_version", scope.getScope().getVersion()});
                }
                for (Metric metric : scope.getMetricsList()) {
                    metric(metric, scopeLabels, identity, lines, latest);
                }
            }
            Map<String, String> info = merge(others, identity);
            if (latest[0] != Long.MIN_VALUE && !info.isEmpty()) {
                info.put("__name__", "target_info");
                info.putAll(identity);
                lines.add(line(SeriesTextSink.text(info), latest[0], 1.0));
            }
        }
        return lines;
    }

    private static void metric(Metric metric, List<String[]> scope, Map<String, String> identity, List<String> lines, long[] latest) {
        String[] names = namesOf(metric.getName());
        switch (metric.getDataCase()) {
            case GAUGE -> metric.getGauge().getDataPointsList().forEach(p -> number(names[2], p, scope, identity, lines, latest));
            case SUM -> {
                if (metric.getSum().getAggregationTemporality() == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
                    String name = metric.getSum().getIsMonotonic() ? names[3] : names[4];
                    metric.getSum().getDataPointsList().forEach(p -> number(name, p, scope, identity, lines, latest));
                }
            }
            case HISTOGRAM -> {
                if (metric.getHistogram().getAggregationTemporality() == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
                    metric.getHistogram().getDataPointsList().forEach(p -> histogram(names[4], p, scope, identity, lines, latest));
                }
            }
            case SUMMARY -> metric.getSummary().getDataPointsList().forEach(p -> summary(names[4], p, scope, identity, lines, latest));
            default -> {
            }
        }
    }

    private static String[] namesOf(String name) {
        for (String[] row : METRICS) {
            if (row[0].equals(name)) {
                return row;
            }
        }
        throw new IllegalArgumentException("not in the vocabulary: " + name);
    }

    private static void number(String name, NumberDataPoint p, List<String[]> scope, Map<String, String> identity,
            List<String> lines, long[] latest) {
        boolean stale = (p.getFlags() & 1) != 0;
        if (!stale && p.getValueCase() == NumberDataPoint.ValueCase.VALUE_NOT_SET) {
            return;
        }
        double value = stale ? STALE : p.getValueCase() == NumberDataPoint.ValueCase.AS_INT ? p.getAsInt() : p.getAsDouble();
        add(lines, latest, series(name, null, null, attributes(p.getAttributesList(), scope), identity), p.getTimeUnixNano(), value);
    }

    private static void histogram(String name, HistogramDataPoint p, List<String[]> scope, Map<String, String> identity,
            List<String> lines, long[] latest) {
        boolean stale = (p.getFlags() & 1) != 0;
        Map<String, String> labels = attributes(p.getAttributesList(), scope);
        long cumulative = 0;
        for (int b = 0; p.getBucketCountsCount() > 0 && b < p.getExplicitBoundsCount(); b++) {
            cumulative += p.getBucketCounts(b);
            add(lines, latest, series(name + "_bucket", "le", boundText(p.getExplicitBounds(b)), labels, identity),
                    p.getTimeUnixNano(), stale ? STALE : cumulative);
        }
        add(lines, latest, series(name + "_bucket", "le", "+Inf", labels, identity), p.getTimeUnixNano(), stale ? STALE : p.getCount());
        if (p.hasSum()) {
            add(lines, latest, series(name + "_sum", null, null, labels, identity), p.getTimeUnixNano(), stale ? STALE : p.getSum());
        }
        add(lines, latest, series(name + "_count", null, null, labels, identity), p.getTimeUnixNano(), stale ? STALE : p.getCount());
    }

    private static void summary(String name, SummaryDataPoint p, List<String[]> scope, Map<String, String> identity,
            List<String> lines, long[] latest) {
        boolean stale = (p.getFlags() & 1) != 0;
        Map<String, String> labels = attributes(p.getAttributesList(), scope);
        for (SummaryDataPoint.ValueAtQuantile q : p.getQuantileValuesList()) {
            String text = QUANTILE_TEXTS[indexOf(QUANTILES, q.getQuantile())];
            add(lines, latest, series(name, "quantile", text, labels, identity), p.getTimeUnixNano(), stale ? STALE : q.getValue());
        }
        add(lines, latest, series(name + "_sum", null, null, labels, identity), p.getTimeUnixNano(), stale ? STALE : p.getSum());
        add(lines, latest, series(name + "_count", null, null, labels, identity), p.getTimeUnixNano(), stale ? STALE : p.getCount());
    }

    private static void add(List<String> lines, long[] latest, String series, long timeNanos, double value) {
        long ms = Long.divideUnsigned(timeNanos, 1_000_000L);
        lines.add(line(series, ms, value));
        latest[0] = Math.max(latest[0], ms);
    }

    private static String series(String name, String extraName, String extraValue, Map<String, String> labels,
            Map<String, String> identity) {
        Map<String, String> all = new LinkedHashMap<>(labels);
        all.putAll(identity);
        if (extraName != null) {
            all.put(extraName, extraValue);
        }
        all.put("__name__", name);
        return SeriesTextSink.text(all);
    }

    /** Scope labels and point attributes, sanitized, colliding ones joined by ';' in the order of their keys. */
    private static Map<String, String> attributes(List<KeyValue> attributes, List<String[]> scope) {
        List<String[]> all = new ArrayList<>(scope);
        for (KeyValue kv : attributes) {
            all.add(new String[] {kv.getKey(), text(kv.getValue())});
        }
        Map<String, String> merged = merge(all, Map.of());
        merged.remove("__name__");
        return merged;
    }

    private static Map<String, String> merge(List<String[]> keyValues, Map<String, String> overridden) {
        Map<String, List<String[]>> groups = new LinkedHashMap<>();
        for (String[] kv : keyValues) {
            groups.computeIfAbsent(labelName(kv[0]), k -> new ArrayList<>()).add(kv);
        }
        Map<String, String> merged = new LinkedHashMap<>();
        groups.forEach((label, group) -> {
            group.sort(Comparator.comparing((String[] kv) -> kv[0], OtlpOracle::compareUtf8));
            merged.put(label, String.join(";", group.stream().map(kv -> kv[1]).toList()));
        });
        merged.keySet().removeAll(overridden.keySet());
        return merged;
    }

    private static String labelName(String key) {
        for (String[] row : KEYS) {
            if (row[0].equals(key)) {
                return row[1];
            }
        }
        return key.startsWith("otel_scope_") ? key : "?" + key;
    }

    private static int compareUtf8(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case INT_VALUE -> Long.toString(value.getIntValue());
            case VALUE_NOT_SET -> "";
            default -> throw new IllegalArgumentException("not in the random vocabulary: " + value);
        };
    }

    private static String boundText(double bound) {
        return BOUND_TEXTS[indexOf(BOUNDS, bound)];
    }

    private static int indexOf(double[] values, double v) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == v) {
                return i;
            }
        }
        throw new IllegalArgumentException("not in the vocabulary: " + v);
    }
}
