package io.sluice.server.format.otlp;

import static io.sluice.server.format.SeriesTextSink.line;
import static io.sluice.server.format.otlp.OtlpBuilders.NS;
import static io.sluice.server.format.otlp.OtlpBuilders.attr;
import static io.sluice.server.format.otlp.OtlpBuilders.bare;
import static io.sluice.server.format.otlp.OtlpBuilders.gauge;
import static io.sluice.server.format.otlp.OtlpBuilders.histogram;
import static io.sluice.server.format.otlp.OtlpBuilders.intPoint;
import static io.sluice.server.format.otlp.OtlpBuilders.point;
import static io.sluice.server.format.otlp.OtlpBuilders.request;
import static io.sluice.server.format.otlp.OtlpBuilders.resource;
import static io.sluice.server.format.otlp.OtlpBuilders.scope;
import static io.sluice.server.format.otlp.OtlpBuilders.sum;
import static io.sluice.server.format.otlp.OtlpBuilders.summary;
import static io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
import static io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA;
import static io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_UNSPECIFIED;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.SeriesTextSink;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExponentialHistogram;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExponentialHistogramDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExportMetricsServiceRequest;
import io.sluice.server.format.otlp.pb.OtlpMetrics.HistogramDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Metric;
import io.sluice.server.format.otlp.pb.OtlpMetrics.NumberDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.SummaryDataPoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The OTLP to Prometheus mapping, case by case, with the series written out as Prometheus shows them. */
class OtlpDecoderTest {
    private static final long T = 1_763_800_000_123L;
    private static final double STALE = Double.longBitsToDouble(OtlpPoints.STALE_NAN_BITS);

    private final OtlpDecoder decoder = new OtlpDecoder(DecoderLimits.DEFAULTS);

    private List<String> decode(ExportMetricsServiceRequest request) throws PayloadException {
        byte[] record = request.toByteArray();
        SeriesTextSink sink = new SeriesTextSink();
        decoder.decode(record, 0, record.length, 0, sink);
        return sink.lines();
    }

    @Test
    void gaugesWithResourceScopeAndAttributes() throws PayloadException {
        ExportMetricsServiceRequest request = request(
                resource(attr("service.name", "checkout"), attr("service.namespace", "shop"),
                        attr("service.instance.id", "pod-7"), attr("host.name", "node-1"), attr("os.type", "linux")),
                scope("io.opentelemetry.runtime", "1.2.0", attr("library.lang", "java")),
                gauge("jvm.memory.used", "By", point(T, 1.5e9, attr("pool", "heap"), attr("area", ""))),
                gauge("queue.depth", "{item}", intPoint(T + 5, -3, attr("http.method", "GET"))));
        String scopeLabels = ",otel_scope_library_lang=\"java\",otel_scope_name=\"io.opentelemetry.runtime\",otel_scope_version=\"1.2.0\"";
        assertThat(decode(request)).containsExactly(
                line("jvm_memory_used_bytes{instance=\"pod-7\",job=\"shop/checkout\"" + scopeLabels + ",pool=\"heap\"}", T, 1.5e9),
                line("queue_depth{http_method=\"GET\",instance=\"pod-7\",job=\"shop/checkout\"" + scopeLabels + "}", T + 5, -3.0),
                line("target_info{host_name=\"node-1\",instance=\"pod-7\",job=\"shop/checkout\",os_type=\"linux\"}", T + 5, 1.0));
    }

    @Test
    void sumsByTemporalityAndMonotonicity() throws PayloadException {
        ExportMetricsServiceRequest request = bare(
                sum("http.requests", "1", true, AGGREGATION_TEMPORALITY_CUMULATIVE, point(T, 10)),
                sum("requests_total", "", true, AGGREGATION_TEMPORALITY_CUMULATIVE, point(T, 11)),
                sum("total.requests", "", true, AGGREGATION_TEMPORALITY_CUMULATIVE, point(T, 12)),
                sum("active.sessions", "{session}", false, AGGREGATION_TEMPORALITY_CUMULATIVE, point(T, 13)),
                sum("deltas", "", true, AGGREGATION_TEMPORALITY_DELTA, point(T, 14), point(T, 15)),
                sum("unspecified", "", true, AGGREGATION_TEMPORALITY_UNSPECIFIED, point(T, 16)));
        assertThat(decode(request)).containsExactly(
                line("http_requests_total{}", T, 10.0),
                line("requests_total{}", T, 11.0),
                line("requests_total{}", T, 12.0),
                line("active_sessions{}", T, 13.0));
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.DELTA_TEMPORALITY)).isEqualTo(1);
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.UNSPECIFIED_TEMPORALITY)).isEqualTo(1);
    }

    @Test
    void unitsBecomeSuffixesAsPrometheusNamesThem() throws PayloadException {
        Object[][] cases = {
            {"http.server.request.duration", "s", "http_server_request_duration_seconds"},
            {"system.network.io", "By/s", "system_network_io_bytes_per_second"},
            {"cpu.utilization", "1", "cpu_utilization_ratio"},
            {"disk_ratio_used", "1", "disk_used_ratio"},
            {"latency_seconds", "s", "latency_seconds"},
            {"transfer", "MiBy/mo", "transfer_mebibytes_per_month"},
            {"temperature", "Cel", "temperature_celsius"},
            {"rate", "{packets}/s", "rate_per_second"},
            {"odd", "my unit/ weird ", "odd_my_unit_per_weird"},
            {"custom", "widgets", "custom_widgets"},
            {"3d.printers", "", "_3d_printers"},
            {"a..b__c", "", "a_b_c"},
            {"温度.celsius", "Cel", "celsius"},
            {"ns:name", "ms", "ns:name_milliseconds"},
            {"unit.per", "%/", "unit_per_percent"},
        };
        for (Object[] c : cases) {
            assertThat(decode(bare(gauge((String) c[0], (String) c[1], point(T, 1)))))
                    .as("%s [%s]", c[0], c[1]).containsExactly(line(c[2] + "{}", T, 1.0));
        }
        assertThat(decode(bare(gauge("温度", "", point(T, 1)), gauge("", "{x}", point(T, 2))))).isEmpty();
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.INVALID_NAME)).isEqualTo(2);
    }

    @Test
    void histogramsBecomeCumulativeBucketsSumAndCount() throws PayloadException {
        HistogramDataPoint full = HistogramDataPoint.newBuilder().setTimeUnixNano(T * NS).setCount(21).setSum(3.5)
                .addAllExplicitBounds(List.of(0.005, 0.01, 0.1, 1.0, 1e21)).addAllBucketCounts(List.of(1L, 2L, 3L, 4L, 5L, 6L))
                .addAttributes(attr("route", "/a")).addAttributes(attr("le", "attribute")).build();
        HistogramDataPoint noSumNoBuckets = HistogramDataPoint.newBuilder().setTimeUnixNano((T + 1) * NS).setCount(4).build();
        List<String> lines = decode(bare(histogram("rpc.duration", "ms", AGGREGATION_TEMPORALITY_CUMULATIVE, full, noSumNoBuckets)));
        assertThat(lines).containsExactly(
                line("rpc_duration_milliseconds_bucket{le=\"0.005\",route=\"/a\"}", T, 1.0),
                line("rpc_duration_milliseconds_bucket{le=\"0.01\",route=\"/a\"}", T, 3.0),
                line("rpc_duration_milliseconds_bucket{le=\"0.1\",route=\"/a\"}", T, 6.0),
                line("rpc_duration_milliseconds_bucket{le=\"1\",route=\"/a\"}", T, 10.0),
                line("rpc_duration_milliseconds_bucket{le=\"1000000000000000000000\",route=\"/a\"}", T, 15.0),
                line("rpc_duration_milliseconds_bucket{le=\"+Inf\",route=\"/a\"}", T, 21.0),
                line("rpc_duration_milliseconds_sum{le=\"attribute\",route=\"/a\"}", T, 3.5),
                line("rpc_duration_milliseconds_count{le=\"attribute\",route=\"/a\"}", T, 21.0),
                line("rpc_duration_milliseconds_bucket{le=\"+Inf\"}", T + 1, 4.0),
                line("rpc_duration_milliseconds_count{}", T + 1, 4.0));
        assertThat(decode(bare(histogram("d", "", AGGREGATION_TEMPORALITY_DELTA, full)))).isEmpty();
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.DELTA_TEMPORALITY)).isEqualTo(1);
    }

    @Test
    void summariesBecomeQuantilesSumAndCount() throws PayloadException {
        SummaryDataPoint point = SummaryDataPoint.newBuilder().setTimeUnixNano(T * NS).setCount(7).setSum(12.25)
                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0).setValue(0.5))
                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.5).setValue(1.5))
                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.99).setValue(4))
                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(1).setValue(5))
                .build();
        assertThat(decode(bare(summary("gc.pause", "s", point)))).containsExactly(
                line("gc_pause_seconds{quantile=\"0\"}", T, 0.5),
                line("gc_pause_seconds{quantile=\"0.5\"}", T, 1.5),
                line("gc_pause_seconds{quantile=\"0.99\"}", T, 4.0),
                line("gc_pause_seconds{quantile=\"1\"}", T, 5.0),
                line("gc_pause_seconds_sum{}", T, 12.25),
                line("gc_pause_seconds_count{}", T, 7.0));
    }

    @Test
    void noRecordedValueIsTheStaleMarkerOnEverySeriesOfThePoint() throws PayloadException {
        NumberDataPoint staleGauge = NumberDataPoint.newBuilder().setTimeUnixNano(T * NS).setFlags(1).build();
        HistogramDataPoint staleHistogram = HistogramDataPoint.newBuilder().setTimeUnixNano(T * NS).setFlags(1)
                .setCount(3).setSum(1).addExplicitBounds(1).addBucketCounts(1).addBucketCounts(2).build();
        NumberDataPoint noValue = NumberDataPoint.newBuilder().setTimeUnixNano(T * NS).build();
        assertThat(decode(bare(gauge("g", "", staleGauge, noValue),
                histogram("h", "", AGGREGATION_TEMPORALITY_CUMULATIVE, staleHistogram)))).containsExactly(
                line("g{}", T, STALE),
                line("h_bucket{le=\"1\"}", T, STALE),
                line("h_bucket{le=\"+Inf\"}", T, STALE),
                line("h_sum{}", T, STALE),
                line("h_count{}", T, STALE));
        assertThat(decoder.pointsWithoutValueTotal()).isEqualTo(1);
    }

    @Test
    void specialValuesTimestampsAndOrderPassThroughBitExactly() throws PayloadException {
        double[] values = {Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L), Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, Double.longBitsToDouble(0x000fffffffffffffL), STALE};
        NumberDataPoint[] points = new NumberDataPoint[values.length + 3];
        for (int i = 0; i < values.length; i++) {
            points[i] = point(T - i, values[i]);
        }
        points[values.length] = point(T, 1);
        points[values.length + 1] = point(T, 2);
        points[values.length + 2] = NumberDataPoint.newBuilder().setTimeUnixNano(-1L).setAsDouble(3).build();
        List<String> lines = decode(bare(gauge("g", "", points)));
        for (int i = 0; i < values.length; i++) {
            assertThat(lines.get(i)).isEqualTo(line("g{}", T - i, values[i]));
        }
        assertThat(lines.subList(values.length, lines.size())).containsExactly(
                line("g{}", T, 1.0), line("g{}", T, 2.0), line("g{}", Long.divideUnsigned(-1L, NS), 3.0));
    }

    @Test
    void attributeKeysAreSanitizedAndCollisionsJoinedByOriginalKey() throws PayloadException {
        ExportMetricsServiceRequest request = bare(gauge("g", "", point(T, 1,
                attr("a_b", "second"), attr("a.b", "first"), attr("9lives", "cat"), attr("__meta.x__", "m"),
                attr("_lead", "l"), attr("x--y", "z"), attr("ünï", "u"), attr("___", "dropped"), attr("", "dropped"),
                attr("__name__", "not the name"), attr("job", "from attribute"))));
        assertThat(decode(request)).containsExactly(line("g{__meta_x__=\"m\",_lead=\"l\",_n_=\"u\",a_b=\"first;second\","
                + "job=\"from attribute\",key_9lives=\"cat\",x_y=\"z\"}", T, 1.0));
        assertThat(decoder.attributeKeysDroppedTotal()).isEqualTo(2);
    }

    @Test
    void resourceIdentityOverridesAttributesAndTargetInfoNeedsOtherAttributes() throws PayloadException {
        ExportMetricsServiceRequest identityOnly = request(resource(attr("service.name", "api"), attr("service.instance.id", "i-1")),
                scope("", ""), gauge("g", "", point(T, 1, attr("job", "attribute"), attr("instance", "attribute"))));
        assertThat(decode(identityOnly)).containsExactly(line("g{instance=\"i-1\",job=\"api\"}", T, 1.0));
        ExportMetricsServiceRequest namespaceWithoutName = request(resource(attr("service.namespace", "ns"), attr("k8s.pod.name", "p")),
                scope("", ""), gauge("g", "", point(T, 1, attr("job", "attribute"))));
        assertThat(decode(namespaceWithoutName)).containsExactly(line("g{job=\"attribute\"}", T, 1.0),
                line("target_info{k8s_pod_name=\"p\"}", T, 1.0));
    }

    @Test
    void nonStringAttributesAsTheSpecificationWritesThem() throws PayloadException {
        ExportMetricsServiceRequest request = bare(gauge("g", "", point(T, 1,
                attr("bool", OtlpBuilders.bool(true)), attr("int", OtlpBuilders.integer(-42)),
                attr("double", OtlpBuilders.dbl(1.5)), attr("big", OtlpBuilders.dbl(1e21)), attr("small", OtlpBuilders.dbl(1.5e-7)),
                attr("nan", OtlpBuilders.dbl(Double.NaN)), attr("inf", OtlpBuilders.dbl(Double.NEGATIVE_INFINITY)),
                attr("bytes", OtlpBuilders.bytes("hello world".getBytes())),
                attr("array", OtlpBuilders.array(OtlpBuilders.integer(1), OtlpBuilders.dbl(Double.NEGATIVE_INFINITY),
                        OtlpBuilders.str("a\"b"), OtlpBuilders.bool(false), io.sluice.server.format.otlp.pb.OtlpMetrics.AnyValue.getDefaultInstance(),
                        OtlpBuilders.kvlist(attr("nested", OtlpBuilders.bytes("hi".getBytes()))))),
                attr("map", OtlpBuilders.kvlist(attr("b", OtlpBuilders.integer(2)), attr("a", "x\ny"))))));
        assertThat(decode(request)).containsExactly(line("g{array=\"[1,\"-Infinity\",\"a\\\"b\",false,null,{\"nested\":\"aGk=\"}]\","
                + "big=\"1e+21\",bool=\"true\",bytes=\"aGVsbG8gd29ybGQ=\",double=\"1.5\",inf=\"-Infinity\",int=\"-42\","
                + "map=\"{\"b\":2,\"a\":\"x\\ny\"}\",nan=\"NaN\",small=\"1.5e-7\"}", T, 1.0));
    }

    @Test
    void exponentialHistogramsAreSkippedAndCountedTheRestIsKept() throws PayloadException {
        Metric exponential = Metric.newBuilder().setName("latency").setExponentialHistogram(ExponentialHistogram.newBuilder()
                .setAggregationTemporality(AGGREGATION_TEMPORALITY_CUMULATIVE)
                .addDataPoints(ExponentialHistogramDataPoint.newBuilder().setCount(3).setScale(2))).build();
        Metric empty = Metric.newBuilder().setName("nothing").build();
        assertThat(decode(bare(exponential, gauge("kept", "", point(T, 1)), empty))).containsExactly(line("kept{}", T, 1.0));
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.EXPONENTIAL_HISTOGRAM)).isEqualTo(1);
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.NO_DATA)).isEqualTo(1);
    }

    @Test
    void pointsWithThousandsOfAttributesAreHandedOverWithoutAQuadraticCheck() throws PayloadException {
        NumberDataPoint.Builder point = NumberDataPoint.newBuilder().setTimeUnixNano(T * NS).setAsDouble(1);
        for (int i = 0; i < 200_000; i++) {
            point.addAttributes(attr("k" + i, "v"));
        }
        SeriesTextSink sink = new SeriesTextSink();
        byte[] record = bare(gauge("g", "", point.build())).toByteArray();
        decoder.decode(record, 0, record.length, 0, sink);
        assertThat(sink.lines()).hasSize(1).allMatch(l -> l.contains("k199999=\"v\""));
    }

    @Test
    void scopeAttributesThatPoseAsTheScopesOwnLabelsAreDropped() throws PayloadException {
        ExportMetricsServiceRequest request = request(resource(), scope("lib", "", attr("name", "impostor"), attr("tier", "gold")),
                gauge("g", "", point(T, 1)));
        assertThat(decode(request)).containsExactly(line("g{otel_scope_name=\"lib\",otel_scope_tier=\"gold\"}", T, 1.0));
    }
}
