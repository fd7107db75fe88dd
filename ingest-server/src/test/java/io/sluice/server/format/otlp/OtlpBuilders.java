package io.sluice.server.format.otlp;

import com.google.protobuf.ByteString;
import io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality;
import io.sluice.server.format.otlp.pb.OtlpMetrics.AnyValue;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ArrayValue;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExportMetricsServiceRequest;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Gauge;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Histogram;
import io.sluice.server.format.otlp.pb.OtlpMetrics.HistogramDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.InstrumentationScope;
import io.sluice.server.format.otlp.pb.OtlpMetrics.KeyValue;
import io.sluice.server.format.otlp.pb.OtlpMetrics.KeyValueList;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Metric;
import io.sluice.server.format.otlp.pb.OtlpMetrics.NumberDataPoint;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Resource;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ResourceMetrics;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ScopeMetrics;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Sum;
import io.sluice.server.format.otlp.pb.OtlpMetrics.Summary;
import io.sluice.server.format.otlp.pb.OtlpMetrics.SummaryDataPoint;
import java.util.List;

/** Short ways to build OTLP messages with the protobuf-java classes generated from the test schema. */
final class OtlpBuilders {
    static final long NS = 1_000_000L;

    private OtlpBuilders() {
    }

    static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
    }

    static KeyValue attr(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    static AnyValue bool(boolean v) {
        return AnyValue.newBuilder().setBoolValue(v).build();
    }

    static AnyValue integer(long v) {
        return AnyValue.newBuilder().setIntValue(v).build();
    }

    static AnyValue dbl(double v) {
        return AnyValue.newBuilder().setDoubleValue(v).build();
    }

    static AnyValue bytes(byte[] v) {
        return AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(v)).build();
    }

    static AnyValue str(String v) {
        return AnyValue.newBuilder().setStringValue(v).build();
    }

    static AnyValue array(AnyValue... values) {
        return AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(values))).build();
    }

    static AnyValue kvlist(KeyValue... values) {
        return AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder().addAllValues(List.of(values))).build();
    }

    static Resource resource(KeyValue... attributes) {
        return Resource.newBuilder().addAllAttributes(List.of(attributes)).build();
    }

    static InstrumentationScope scope(String name, String version, KeyValue... attributes) {
        return InstrumentationScope.newBuilder().setName(name).setVersion(version).addAllAttributes(List.of(attributes)).build();
    }

    static ExportMetricsServiceRequest request(Resource resource, InstrumentationScope scope, Metric... metrics) {
        return ExportMetricsServiceRequest.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder()
                .setResource(resource)
                .addScopeMetrics(ScopeMetrics.newBuilder().setScope(scope).addAllMetrics(List.of(metrics))))
                .build();
    }

    /** A request without resource attributes or scope: only the metric's own labels. */
    static ExportMetricsServiceRequest bare(Metric... metrics) {
        return ExportMetricsServiceRequest.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder()
                .addScopeMetrics(ScopeMetrics.newBuilder().addAllMetrics(List.of(metrics)))).build();
    }

    static NumberDataPoint point(long timeMs, double value, KeyValue... attributes) {
        return NumberDataPoint.newBuilder().setTimeUnixNano(timeMs * NS).setAsDouble(value)
                .addAllAttributes(List.of(attributes)).build();
    }

    static NumberDataPoint intPoint(long timeMs, long value, KeyValue... attributes) {
        return NumberDataPoint.newBuilder().setTimeUnixNano(timeMs * NS).setAsInt(value)
                .addAllAttributes(List.of(attributes)).build();
    }

    static Metric gauge(String name, String unit, NumberDataPoint... points) {
        return Metric.newBuilder().setName(name).setUnit(unit).setGauge(Gauge.newBuilder().addAllDataPoints(List.of(points))).build();
    }

    static Metric sum(String name, String unit, boolean monotonic, AggregationTemporality temporality, NumberDataPoint... points) {
        return Metric.newBuilder().setName(name).setUnit(unit).setSum(Sum.newBuilder().setIsMonotonic(monotonic)
                .setAggregationTemporality(temporality).addAllDataPoints(List.of(points))).build();
    }

    static Metric histogram(String name, String unit, AggregationTemporality temporality, HistogramDataPoint... points) {
        return Metric.newBuilder().setName(name).setUnit(unit).setHistogram(Histogram.newBuilder()
                .setAggregationTemporality(temporality).addAllDataPoints(List.of(points))).build();
    }

    static Metric summary(String name, String unit, SummaryDataPoint... points) {
        return Metric.newBuilder().setName(name).setUnit(unit).setSummary(Summary.newBuilder().addAllDataPoints(List.of(points))).build();
    }
}
