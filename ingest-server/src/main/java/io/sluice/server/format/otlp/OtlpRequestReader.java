package io.sluice.server.format.otlp;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;
import java.util.Arrays;

/**
 * Walks an {@code ExportMetricsServiceRequest} (see {@link OtlpSchema}) in place: for each
 * ResourceMetrics, first its Resource (job, instance, target_info labels), then each ScopeMetrics, first
 * its scope (the {@code otel_scope_*} labels), then its metrics, whose points {@link OtlpPoints} emits.
 * Protobuf lets a message's fields come in any order, so a ResourceMetrics and a ScopeMetrics are each
 * walked twice (context first, then content); a Metric once, noting its name, unit and data.
 *
 * <p>Metrics that cannot be stored faithfully are skipped and counted by {@link OtlpSkip}, the rest of
 * the record is kept: delta or unspecified temporality, exponential histograms, no data, an empty name.
 *
 * <p>Not thread-safe; owned by its {@link OtlpDecoder}.
 */
final class OtlpRequestReader {
    private static final byte[] SCOPE_PREFIX = PrometheusNames.ascii("otel_scope_");
    private static final byte[] SCOPE_NAME = PrometheusNames.ascii("otel_scope_name");
    private static final byte[] SCOPE_VERSION = PrometheusNames.ascii("otel_scope_version");
    private static final byte[] SCOPE_SCHEMA_URL = PrometheusNames.ascii("otel_scope_schema_url");

    private final FloatText floats = new FloatText();
    private final OtlpAttributes attributes = new OtlpAttributes(floats);
    private final OtlpPoints points = new OtlpPoints(attributes, floats);
    private final PrometheusNames names = new PrometheusNames();
    private final OtlpResource resource = new OtlpResource();
    private final OtlpLabels scope = new OtlpLabels();
    private final ByteWriter scopeArena = new ByteWriter(512);
    private final ByteWriter metricName = new ByteWriter(128);

    // Method references made once: a bound reference evaluated per call could allocate.
    private final MessageReader resourceMetricsReader = this::resourceMetrics;
    private final MessageReader resourceReader = this::resource;
    private final MessageReader scopeMetricsReader = this::scopeMetrics;
    private final MessageReader metricReader = this::metric;

    // service.name (0) and service.namespace (1) of the resource being read, joined once both may be known.
    private boolean serviceName;
    private final byte[][] serviceBuf = new byte[2][];
    private final int[] serviceOff = new int[2];
    private final int[] serviceLen = {-1, -1};
    /** Whether the Sum being read is monotonic (set by checkTemporality). */
    private boolean monotonic;

    // Counts for the record being read; the decoder publishes them when it decoded.
    final int[] metricsSkipped = new int[OtlpSkip.values().length];

    void read(WireReader in, MetricSink sink) throws PayloadException {
        Arrays.fill(metricsSkipped, 0);
        points.pointsWithoutValue = 0;
        points.exemplarsSkipped = 0;
        attributes.resetCount();
        forEach(in, OtlpSchema.REQUEST_RESOURCE_METRICS, "ExportMetricsServiceRequest", resourceMetricsReader, sink);
    }

    int pointsWithoutValue() {
        return points.pointsWithoutValue;
    }

    int exemplarsSkipped() {
        return points.exemplarsSkipped;
    }

    int attributeKeysDropped() {
        return attributes.keysDropped();
    }

    private void resourceMetrics(WireReader in, MetricSink sink) throws PayloadException {
        int start = in.position();
        resource.clear();
        forEach(in, OtlpSchema.RESOURCE_METRICS_RESOURCE, "ResourceMetrics", resourceReader, null);
        finishResource();
        in.position(start);
        forEach(in, OtlpSchema.RESOURCE_METRICS_SCOPE_METRICS, "ResourceMetrics", scopeMetricsReader, sink);
        resource.emitTargetInfo(sink);
    }

    /** A Resource: identity attributes to job and instance, the others to target_info's labels. */
    private void resource(WireReader in, MetricSink unused) throws PayloadException {
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Resource");
            if (fieldNumber(tag) != OtlpSchema.RESOURCE_ATTRIBUTES) {
                skipField(in, tag, tagPos, "Resource");
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, "Resource.attributes");
            int outer = in.pushLimit(in.readLength("Resource.attributes"));
            attributes.read(in, resource.arena);
            if (attributes.keyEquals(OtlpResource.SERVICE_NAME)) {
                serviceName = true;
                remember(0);
            } else if (attributes.keyEquals(OtlpResource.SERVICE_NAMESPACE)) {
                remember(1);
            } else if (attributes.keyEquals(OtlpResource.SERVICE_INSTANCE_ID)) {
                resource.instance(attributes.valueBuffer(), attributes.valueOffset(), attributes.valueLength());
            } else {
                attributes.addTo(resource.targetInfo, resource.arena, null);
            }
            in.popLimit(outer);
        }
    }

    private void remember(int which) {
        serviceBuf[which] = attributes.valueBuffer();
        serviceOff[which] = attributes.valueOffset();
        serviceLen[which] = attributes.valueLength();
    }

    /** job = "namespace/name", or "name" without a namespace; no job without service.name. */
    private void finishResource() {
        if (serviceName) {
            if (serviceLen[1] > 0) {
                ByteWriter arena = resource.arena;
                int start = arena.length();
                arena.writeBytes(serviceBuf[1], serviceOff[1], serviceLen[1]);
                arena.writeByte('/');
                arena.writeBytes(serviceBuf[0], serviceOff[0], serviceLen[0]);
                resource.job(arena.buffer(), start, arena.length() - start);
            } else {
                resource.job(serviceBuf[0], serviceOff[0], serviceLen[0]);
            }
        }
        serviceName = false;
        serviceLen[0] = -1;
        serviceLen[1] = -1;
        resource.targetInfo.mergeCollisions(resource.arena);
        resource.targetInfo.drop(OtlpLabels.METRIC_NAME);
        if (resource.hasJob()) {
            resource.targetInfo.drop(OtlpLabels.JOB);
        }
        if (resource.hasInstance()) {
            resource.targetInfo.drop(OtlpLabels.INSTANCE);
        }
    }

    private void scopeMetrics(WireReader in, MetricSink sink) throws PayloadException {
        int start = in.position();
        scope.clear();
        scopeArena.reset();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "ScopeMetrics");
            int field = fieldNumber(tag);
            if (field == OtlpSchema.SCOPE_METRICS_SCOPE) {
                expectWireType(in, tag, LEN, tagPos, "ScopeMetrics.scope");
                int outer = in.pushLimit(in.readLength("ScopeMetrics.scope"));
                scope(in);
                in.popLimit(outer);
            } else if (field == OtlpSchema.SCOPE_METRICS_SCHEMA_URL) {
                expectWireType(in, tag, LEN, tagPos, "ScopeMetrics.schema_url");
                int len = in.readLength("ScopeMetrics.schema_url");
                scopeLabel(SCOPE_SCHEMA_URL, in.buffer(), in.position(), len);
                in.skip(len, "ScopeMetrics.schema_url");
            } else {
                skipField(in, tag, tagPos, "ScopeMetrics");
            }
        }
        scope.mergeCollisions(scopeArena);
        in.position(start);
        forEach(in, OtlpSchema.SCOPE_METRICS_METRICS, "ScopeMetrics", metricReader, sink);
    }

    /** An InstrumentationScope: otel_scope_name, otel_scope_version, otel_scope_&lt;attribute&gt;. */
    private void scope(WireReader in) throws PayloadException {
        int start = in.position();
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "InstrumentationScope");
            if (fieldNumber(tag) != OtlpSchema.SCOPE_ATTRIBUTES) {
                skipField(in, tag, tagPos, "InstrumentationScope");
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, "InstrumentationScope.attributes");
            int outer = in.pushLimit(in.readLength("InstrumentationScope.attributes"));
            attributes.read(in, scopeArena);
            attributes.addTo(scope, scopeArena, SCOPE_PREFIX);
            in.popLimit(outer);
        }
        scope.drop(SCOPE_NAME); // attributes may not pose as the scope's own labels
        scope.drop(SCOPE_VERSION);
        scope.drop(SCOPE_SCHEMA_URL);
        in.position(start);
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "InstrumentationScope");
            int field = fieldNumber(tag);
            if (field == OtlpSchema.SCOPE_NAME || field == OtlpSchema.SCOPE_VERSION) {
                expectWireType(in, tag, LEN, tagPos, "InstrumentationScope name or version");
                int len = in.readLength("InstrumentationScope name or version");
                scopeLabel(field == OtlpSchema.SCOPE_NAME ? SCOPE_NAME : SCOPE_VERSION, in.buffer(), in.position(), len);
                in.skip(len, "InstrumentationScope name or version");
            } else {
                skipField(in, tag, tagPos, "InstrumentationScope");
            }
        }
    }

    /** One of the scope's own labels; a repeated field's last value wins, as protobuf says. */
    private void scopeLabel(byte[] name, byte[] value, int off, int len) {
        scope.drop(name);
        scope.add(name, 0, name.length, value, off, len, name, 0, name.length);
    }

    private void metric(WireReader in, MetricSink sink) throws PayloadException {
        int nameOff = in.position();
        int nameLen = 0;
        int unitOff = in.position();
        int unitLen = 0;
        int dataField = 0;
        int dataOff = 0;
        int dataLen = 0;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "Metric");
            int field = fieldNumber(tag);
            switch (field) {
                case OtlpSchema.METRIC_NAME, OtlpSchema.METRIC_UNIT, OtlpSchema.METRIC_GAUGE, OtlpSchema.METRIC_SUM,
                     OtlpSchema.METRIC_HISTOGRAM, OtlpSchema.METRIC_EXPONENTIAL_HISTOGRAM, OtlpSchema.METRIC_SUMMARY -> {
                    expectWireType(in, tag, LEN, tagPos, "Metric field");
                    int len = in.readLength("Metric field");
                    if (field == OtlpSchema.METRIC_NAME) {
                        nameOff = in.position();
                        nameLen = len;
                    } else if (field == OtlpSchema.METRIC_UNIT) {
                        unitOff = in.position();
                        unitLen = len;
                    } else {
                        dataField = field;
                        dataOff = in.position();
                        dataLen = len;
                    }
                    in.skip(len, "Metric field");
                }
                default -> skipField(in, tag, tagPos, "Metric");
            }
        }
        if (dataField == 0) {
            skip(OtlpSkip.NO_DATA);
            return;
        }
        int end = in.position();
        in.position(dataOff);
        int outer = in.pushLimit(dataLen);
        data(in, dataField, nameOff, nameLen, unitOff, unitLen, sink);
        in.popLimit(outer);
        in.position(end);
    }

    /** The metric's data (a Gauge, Sum, Histogram, ... filling {@code in}): checked, named, then its points. */
    private void data(WireReader in, int dataField, int nameOff, int nameLen, int unitOff, int unitLen, MetricSink sink)
            throws PayloadException {
        if (dataField == OtlpSchema.METRIC_EXPONENTIAL_HISTOGRAM) {
            skip(OtlpSkip.EXPONENTIAL_HISTOGRAM);
            return;
        }
        int kind = PrometheusNames.GAUGE;
        if (dataField == OtlpSchema.METRIC_SUM || dataField == OtlpSchema.METRIC_HISTOGRAM) {
            OtlpSkip skip = checkTemporality(in);
            if (skip != null) {
                skip(skip);
                return;
            }
            kind = dataField == OtlpSchema.METRIC_HISTOGRAM ? PrometheusNames.OTHER : monotonic ? PrometheusNames.COUNTER
                    : PrometheusNames.OTHER;
        } else if (dataField == OtlpSchema.METRIC_SUMMARY) {
            kind = PrometheusNames.OTHER;
        }
        byte[] b = in.buffer();
        if (!names.metricName(b, nameOff, nameLen, b, unitOff, unitLen, kind, metricName)) {
            skip(OtlpSkip.INVALID_NAME);
            return;
        }
        int pointKind = dataField == OtlpSchema.METRIC_HISTOGRAM ? OtlpPoints.HISTOGRAM
                : dataField == OtlpSchema.METRIC_SUMMARY ? OtlpPoints.SUMMARY : OtlpPoints.NUMBER;
        points.read(in, pointKind, metricName.buffer(), metricName.length(), scope, resource, sink);
    }

    /** Reads a Sum's or Histogram's temporality (and a Sum's monotonicity); the reason to skip it, or null. */
    private OtlpSkip checkTemporality(WireReader in) throws PayloadException {
        int start = in.position();
        long temporality = 0;
        monotonic = false;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "metric data");
            int field = fieldNumber(tag);
            if (field == OtlpSchema.AGGREGATION_TEMPORALITY || field == OtlpSchema.SUM_IS_MONOTONIC) {
                expectWireType(in, tag, VARINT, tagPos, "temporality or is_monotonic");
                long v = in.readVarint("temporality or is_monotonic");
                if (field == OtlpSchema.AGGREGATION_TEMPORALITY) {
                    temporality = v;
                } else {
                    monotonic = v != 0;
                }
            } else {
                skipField(in, tag, tagPos, "metric data");
            }
        }
        in.position(start);
        if (temporality == OtlpSchema.TEMPORALITY_CUMULATIVE) {
            return null;
        }
        return temporality == OtlpSchema.TEMPORALITY_DELTA ? OtlpSkip.DELTA_TEMPORALITY : OtlpSkip.UNSPECIFIED_TEMPORALITY;
    }

    private void skip(OtlpSkip reason) {
        metricsSkipped[reason.ordinal()]++;
    }

    /** Something done with a nested message. */
    @FunctionalInterface
    private interface MessageReader {
        void read(WireReader in, MetricSink sink) throws PayloadException;
    }

    /**
     * Calls {@code reader} on every occurrence of message field {@code field} of {@code message} (a constant
     * name, for errors); skips the other fields.
     */
    private static void forEach(WireReader in, int field, String message, MessageReader reader, MetricSink sink)
            throws PayloadException {
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, message);
            if (fieldNumber(tag) != field) {
                skipField(in, tag, tagPos, message);
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, message);
            int outer = in.pushLimit(in.readLength(message));
            reader.read(in, sink);
            in.popLimit(outer);
        }
    }
}
