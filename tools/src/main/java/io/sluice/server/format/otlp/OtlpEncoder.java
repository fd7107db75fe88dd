package io.sluice.server.format.otlp;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.tag;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.EncoderState;
import io.sluice.server.format.RecordEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes {@code otlp} record values: an OTLP {@code ExportMetricsServiceRequest} in protobuf (see
 * {@link OtlpSchema}) from Prometheus series, the way an OpenTelemetry SDK would report them, so that
 * {@link OtlpDecoder}'s mapping gives the series back:
 *
 * <ul>
 *   <li>{@code job} becomes the resource attribute {@code service.name} and {@code instance}
 *       {@code service.instance.id}; consecutive series with the same two share one ResourceMetrics.
 *       No other resource attribute is written, so no {@code target_info} series appears;
 *   <li>a series whose name ends in {@code _total} becomes a monotonic cumulative Sum named without it
 *       (the mapping appends {@code _total}); any other series a Gauge; no unit, no scope;
 *   <li>the other labels become the data points' string attributes (empty values left out); a name or key
 *       outside {@code [a-zA-Z0-9_:]} comes back sanitized, as the mapping prescribes;
 *   <li>each sample is a NumberDataPoint with {@code as_double} (NaN payloads kept bit for bit), except
 *       Prometheus' stale marker, written as the {@code NO_RECORDED_VALUE} flag without a value;
 *       timestamps are nanoseconds since 1970 ({@code fixed64}: earlier times cannot be written).
 * </ul>
 *
 * <p>Memory: one buffer per nesting level, grown to the largest; nothing allocated per sample. Not
 * thread-safe.
 */
public final class OtlpEncoder implements RecordEncoder {
    private static final long STALE_NAN_BITS = 0x7ff0000000000002L;
    private static final long NANOS_PER_MS = 1_000_000;
    private static final byte[] METRIC_NAME = ascii("__name__");
    private static final byte[] JOB = ascii("job");
    private static final byte[] INSTANCE = ascii("instance");
    private static final byte[] TOTAL_SUFFIX = ascii("_total");

    private final ByteWriter request;
    private final ByteWriter metrics = new ByteWriter(4096);   // Metric fields of the open resource's scope
    private final ByteWriter points = new ByteWriter(4096);    // NumberDataPoint fields of the current series
    private final ByteWriter attributes = new ByteWriter(256); // KeyValue fields of the current series
    private final ByteWriter scratch = new ByteWriter(256);
    private final ByteWriter scratch2 = new ByteWriter(4096);
    private final ByteWriter name = new ByteWriter(64);
    private final ByteWriter job = new ByteWriter(64);
    private final ByteWriter instance = new ByteWriter(64);
    private final ByteWriter openJob = new ByteWriter(64);      // the resource whose metrics are in `metrics`
    private final ByteWriter openInstance = new ByteWriter(64);
    private final EncoderState state = new EncoderState();
    private boolean hasName;

    public OtlpEncoder(int initialCapacityBytes) {
        request = new ByteWriter(initialCapacityBytes);
    }

    @Override
    public void reset() {
        request.reset();
        metrics.reset();
        openJob.reset();
        openInstance.reset();
        state.reset();
    }

    @Override
    public void beginSeries() {
        state.beginSeries();
        points.reset();
        attributes.reset();
        name.reset();
        job.reset();
        instance.reset();
        hasName = false;
    }

    @Override
    public void label(byte[] labelName, byte[] value) {
        state.requireSeries();
        if (Arrays.equals(labelName, METRIC_NAME)) {
            name.reset();
            name.writeBytes(value, 0, value.length);
            hasName = value.length > 0;
        } else if (Arrays.equals(labelName, JOB)) {
            job.reset();
            job.writeBytes(value, 0, value.length);
        } else if (Arrays.equals(labelName, INSTANCE)) {
            instance.reset();
            instance.writeBytes(value, 0, value.length);
        } else if (value.length > 0) {
            keyValue(attributes, OtlpSchema.NUMBER_ATTRIBUTES, labelName, 0, labelName.length, value, 0, value.length);
        }
    }

    @Override
    public void sample(long timestampMs, double value) {
        state.sample();
        if (timestampMs < 0 || timestampMs > Long.MAX_VALUE / NANOS_PER_MS) {
            throw new IllegalArgumentException("OTLP cannot carry the timestamp " + timestampMs + " ms (nanoseconds since 1970)");
        }
        long bits = Double.doubleToRawLongBits(value);
        boolean stale = bits == STALE_NAN_BITS;
        int length = attributes.length() + 1 + 8 + (stale ? 2 : 1 + 8);
        points.writeByte(tag(OtlpSchema.DATA_POINTS, LEN));
        points.writeVarint(length);
        points.writeBytes(attributes.buffer(), 0, attributes.length());
        points.writeByte(tag(OtlpSchema.POINT_TIME, I64));
        points.writeLongLE(timestampMs * NANOS_PER_MS);
        if (stale) {
            points.writeByte(tag(OtlpSchema.NUMBER_FLAGS, VARINT));
            points.writeByte(OtlpSchema.FLAG_NO_RECORDED_VALUE);
        } else {
            points.writeByte(tag(OtlpSchema.NUMBER_AS_DOUBLE, I64));
            points.writeLongLE(bits);
        }
    }

    @Override
    public void endSeries() {
        state.endSeries();
        if (!hasName) {
            throw new IllegalArgumentException("an OTLP metric needs a name");
        }
        if (!sameBytes(job, openJob) || !sameBytes(instance, openInstance)) {
            closeResource();
            openJob.reset();
            openJob.writeBytes(job.buffer(), 0, job.length());
            openInstance.reset();
            openInstance.writeBytes(instance.buffer(), 0, instance.length());
        }
        boolean counter = endsWith(name, TOTAL_SUFFIX) && name.length() > TOTAL_SUFFIX.length;
        scratch2.reset(); // the Gauge or Sum
        scratch2.writeBytes(points.buffer(), 0, points.length());
        if (counter) {
            scratch2.writeByte(tag(OtlpSchema.AGGREGATION_TEMPORALITY, VARINT));
            scratch2.writeByte(OtlpSchema.TEMPORALITY_CUMULATIVE);
            scratch2.writeByte(tag(OtlpSchema.SUM_IS_MONOTONIC, VARINT));
            scratch2.writeByte(1);
        }
        int nameLength = counter ? name.length() - TOTAL_SUFFIX.length : name.length();
        int nameField = 1 + ByteWriter.varintSize(nameLength) + nameLength;
        int dataField = 1 + ByteWriter.varintSize(scratch2.length()) + scratch2.length();
        metrics.writeByte(tag(OtlpSchema.SCOPE_METRICS_METRICS, LEN));
        metrics.writeVarint(nameField + dataField);
        bytesField(metrics, OtlpSchema.METRIC_NAME, name.buffer(), 0, nameLength);
        bytesField(metrics, counter ? OtlpSchema.METRIC_SUM : OtlpSchema.METRIC_GAUGE, scratch2.buffer(), 0, scratch2.length());
    }

    @Override
    public int finishValues() {
        state.finish();
        closeResource();
        return 1;
    }

    @Override
    public byte[] buffer() {
        return request.buffer();
    }

    @Override
    public int valueLength(int i) {
        return request.length();
    }

    /** Writes the open resource's ResourceMetrics (Resource, one ScopeMetrics) to the request. */
    private void closeResource() {
        if (metrics.length() == 0) {
            return;
        }
        scratch.reset(); // the Resource
        if (openJob.length() > 0) {
            keyValue(scratch, OtlpSchema.RESOURCE_ATTRIBUTES, OtlpResource.SERVICE_NAME, 0, OtlpResource.SERVICE_NAME.length,
                    openJob.buffer(), 0, openJob.length());
        }
        if (openInstance.length() > 0) {
            keyValue(scratch, OtlpSchema.RESOURCE_ATTRIBUTES, OtlpResource.SERVICE_INSTANCE_ID, 0, OtlpResource.SERVICE_INSTANCE_ID.length,
                    openInstance.buffer(), 0, openInstance.length());
        }
        int resourceField = 1 + ByteWriter.varintSize(scratch.length()) + scratch.length();
        int scopeField = 1 + ByteWriter.varintSize(metrics.length()) + metrics.length();
        request.writeByte(tag(OtlpSchema.REQUEST_RESOURCE_METRICS, LEN));
        request.writeVarint(resourceField + scopeField);
        bytesField(request, OtlpSchema.RESOURCE_METRICS_RESOURCE, scratch.buffer(), 0, scratch.length());
        bytesField(request, OtlpSchema.RESOURCE_METRICS_SCOPE_METRICS, metrics.buffer(), 0, metrics.length());
        metrics.reset();
    }

    /** A KeyValue as field {@code field} (1 in Resource, 7 in NumberDataPoint) with a string AnyValue. */
    private static void keyValue(ByteWriter to, int field, byte[] key, int keyOff, int keyLen, byte[] value, int valueOff,
                                 int valueLen) {
        int anyValue = 1 + ByteWriter.varintSize(valueLen) + valueLen;
        int body = 1 + ByteWriter.varintSize(keyLen) + keyLen + 1 + ByteWriter.varintSize(anyValue) + anyValue;
        to.writeByte(tag(field, LEN));
        to.writeVarint(body);
        bytesField(to, OtlpSchema.KEY_VALUE_KEY, key, keyOff, keyLen);
        to.writeByte(tag(OtlpSchema.KEY_VALUE_VALUE, LEN));
        to.writeVarint(anyValue);
        bytesField(to, OtlpSchema.ANY_STRING, value, valueOff, valueLen);
    }

    private static void bytesField(ByteWriter to, int field, byte[] b, int off, int len) {
        to.writeByte(tag(field, LEN));
        to.writeVarint(len);
        to.writeBytes(b, off, len);
    }

    private static boolean sameBytes(ByteWriter a, ByteWriter b) {
        return Arrays.equals(a.buffer(), 0, a.length(), b.buffer(), 0, b.length());
    }

    private static boolean endsWith(ByteWriter w, byte[] suffix) {
        return w.length() >= suffix.length
                && Arrays.equals(w.buffer(), w.length() - suffix.length, w.length(), suffix, 0, suffix.length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
