package io.sluice.server.format.otlp;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;
import static io.sluice.server.format.ProtoWire.wireType;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;
import java.util.Arrays;

/**
 * Reads the data points of one OTLP metric and emits its Prometheus series:
 * <ul>
 *   <li>number points (gauge, sum): one sample, the double or the integer value;
 *   <li>histogram points: {@code _bucket{le="b"}} with cumulative counts for each explicit bound,
 *       {@code _bucket{le="+Inf"}} = count, {@code _sum} (only if the point has a sum), {@code _count};
 *   <li>summary points: {@code {quantile="q"}} for each quantile, {@code _sum}, {@code _count}.
 * </ul>
 * Each series carries {@code __name__}, the resource's {@code job} and {@code instance}, the scope's
 * labels and the point's attributes (merged as {@link OtlpLabels} says). Times are nanoseconds, cut to
 * milliseconds; a point flagged NO_RECORDED_VALUE gives the stale marker to every series it makes. A point
 * is read whole before anything of it is emitted; its labels, bounds and quantiles live in buffers that
 * are reused for the next.
 *
 * <p>Not thread-safe; owned by its {@link OtlpRequestReader}.
 */
final class OtlpPoints {
    static final int NUMBER = 0;
    static final int HISTOGRAM = 1;
    static final int SUMMARY = 2;

    static final long STALE_NAN_BITS = 0x7ff0000000000002L;
    private static final double STALE = Double.longBitsToDouble(STALE_NAN_BITS);
    private static final byte[] BUCKET = PrometheusNames.ascii("_bucket");
    private static final byte[] SUM = PrometheusNames.ascii("_sum");
    private static final byte[] COUNT = PrometheusNames.ascii("_count");
    private static final byte[] PLUS_INF = PrometheusNames.ascii("+Inf");

    private final OtlpAttributes attributes;
    private final FloatText floats;
    private final OtlpLabels labels = new OtlpLabels();
    private final ByteWriter arena = new ByteWriter(1024);
    private final ByteWriter seriesName = new ByteWriter(128);
    private final ByteWriter extraValue = new ByteWriter(32);

    private long[] bucketCounts = new long[16];
    private int bucketCount;
    private double[] bounds = new double[16];
    private int boundCount;
    private double[] quantiles = new double[8];
    private double[] quantileValues = new double[8];
    private int quantileCount;

    private long timeNanos;
    private int flags;
    private boolean hasValue;
    private double value;
    private long count;
    private boolean hasSum;
    private double sum;

    // Counts for the record being read; the decoder publishes them when it decoded.
    int pointsWithoutValue;
    int exemplarsSkipped;

    OtlpPoints(OtlpAttributes attributes, FloatText floats) {
        this.attributes = attributes;
        this.floats = floats;
    }

    /**
     * Reads the data points (field 1) of the Gauge, Sum, Histogram or Summary filling {@code in}, and emits
     * their series named {@code name[0, nameLen)} (plus suffixes) with the scope's and resource's labels.
     */
    void read(WireReader in, int kind, byte[] name, int nameLen, OtlpLabels scope, OtlpResource resource, MetricSink sink)
            throws PayloadException {
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "metric data");
            if (fieldNumber(tag) != OtlpSchema.DATA_POINTS) {
                skipField(in, tag, tagPos, "metric data");
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, "data_points");
            int outer = in.pushLimit(in.readLength("data_points"));
            int pointStart = in.position();
            point(in, kind, scope, resource);
            emit(in, pointStart, kind, name, nameLen, resource, sink);
            in.popLimit(outer);
        }
    }

    private void point(WireReader in, int kind, OtlpLabels scope, OtlpResource resource) throws PayloadException {
        timeNanos = 0;
        flags = 0;
        hasValue = false;
        count = 0;
        hasSum = false;
        bucketCount = 0;
        boundCount = 0;
        quantileCount = 0;
        arena.reset();
        labels.clear();
        labels.addAll(scope);
        int attributesField = kind == HISTOGRAM ? OtlpSchema.HISTOGRAM_ATTRIBUTES
                : kind == SUMMARY ? OtlpSchema.SUMMARY_ATTRIBUTES : OtlpSchema.NUMBER_ATTRIBUTES;
        int flagsField = kind == HISTOGRAM ? OtlpSchema.HISTOGRAM_FLAGS
                : kind == SUMMARY ? OtlpSchema.SUMMARY_FLAGS : OtlpSchema.NUMBER_FLAGS;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "data point");
            int field = fieldNumber(tag);
            if (field == attributesField) {
                expectWireType(in, tag, LEN, tagPos, "data point attributes");
                int outer = in.pushLimit(in.readLength("data point attributes"));
                attributes.read(in, arena);
                attributes.addTo(labels, arena, null);
                in.popLimit(outer);
            } else if (field == OtlpSchema.POINT_TIME) {
                expectWireType(in, tag, I64, tagPos, "time_unix_nano");
                timeNanos = in.readLongLE("time_unix_nano");
            } else if (field == flagsField) {
                expectWireType(in, tag, VARINT, tagPos, "flags");
                flags = (int) in.readVarint("flags");
            } else if (!valueField(in, kind, field, tag, tagPos)) {
                skipField(in, tag, tagPos, "data point");
            }
        }
        labels.mergeCollisions(arena);
        labels.drop(OtlpLabels.METRIC_NAME);
        if (resource.hasJob()) {
            labels.drop(OtlpLabels.JOB);
        }
        if (resource.hasInstance()) {
            labels.drop(OtlpLabels.INSTANCE);
        }
    }

    /** Reads a field that carries a value of this kind of point; false if it is not one. */
    private boolean valueField(WireReader in, int kind, int field, int tag, int tagPos) throws PayloadException {
        if (kind == NUMBER) {
            return numberField(in, field, tag, tagPos);
        }
        switch (field) {
            case OtlpSchema.HISTOGRAM_COUNT -> {
                expectWireType(in, tag, I64, tagPos, "count");
                count = in.readLongLE("count");
            }
            case OtlpSchema.HISTOGRAM_SUM -> {
                expectWireType(in, tag, I64, tagPos, "sum");
                sum = Double.longBitsToDouble(in.readLongLE("sum"));
                hasSum = true;
            }
            case OtlpSchema.HISTOGRAM_BUCKET_COUNTS -> {
                if (kind == SUMMARY) {
                    quantile(in, tag, tagPos);
                } else {
                    fixed64s(in, tag, tagPos, false);
                }
            }
            case OtlpSchema.HISTOGRAM_EXPLICIT_BOUNDS -> {
                if (kind == SUMMARY) {
                    return false;
                }
                fixed64s(in, tag, tagPos, true);
            }
            case OtlpSchema.HISTOGRAM_EXEMPLARS -> {
                if (kind == SUMMARY) {
                    return false;
                }
                skipExemplar(in, tag, tagPos);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private boolean numberField(WireReader in, int field, int tag, int tagPos) throws PayloadException {
        switch (field) {
            case OtlpSchema.NUMBER_AS_DOUBLE -> {
                expectWireType(in, tag, I64, tagPos, "as_double");
                value = Double.longBitsToDouble(in.readLongLE("as_double"));
                hasValue = true;
            }
            case OtlpSchema.NUMBER_AS_INT -> {
                expectWireType(in, tag, I64, tagPos, "as_int");
                value = in.readLongLE("as_int");
                hasValue = true;
            }
            case OtlpSchema.NUMBER_EXEMPLARS -> skipExemplar(in, tag, tagPos);
            default -> {
                return false;
            }
        }
        return true;
    }

    private void skipExemplar(WireReader in, int tag, int tagPos) throws PayloadException {
        expectWireType(in, tag, LEN, tagPos, "exemplars");
        in.skip(in.readLength("exemplars"), "exemplars");
        exemplarsSkipped++;
    }

    /** bucket_counts (fixed64) or explicit_bounds (double), packed or one unpacked element. */
    private void fixed64s(WireReader in, int tag, int tagPos, boolean isBounds) throws PayloadException {
        String what = isBounds ? "explicit_bounds" : "bucket_counts";
        if (wireType(tag) == I64) {
            addFixed64(in.readLongLE(what), isBounds);
            return;
        }
        expectWireType(in, tag, LEN, tagPos, what);
        int len = in.readLength(what);
        if (len % 8 != 0) {
            throw in.error(Reason.BAD_PROTOBUF, tagPos, what + ": packed length " + len + " is not a multiple of 8");
        }
        for (int end = in.position() + len; in.position() < end; ) {
            addFixed64(in.readLongLE(what), isBounds);
        }
    }

    private void addFixed64(long bits, boolean isBounds) {
        if (isBounds) {
            if (boundCount == bounds.length) {
                bounds = Arrays.copyOf(bounds, 2 * boundCount);
            }
            bounds[boundCount++] = Double.longBitsToDouble(bits);
        } else {
            if (bucketCount == bucketCounts.length) {
                bucketCounts = Arrays.copyOf(bucketCounts, 2 * bucketCount);
            }
            bucketCounts[bucketCount++] = bits;
        }
    }

    /** A ValueAtQuantile (summary field 6). */
    private void quantile(WireReader in, int tag, int tagPos) throws PayloadException {
        expectWireType(in, tag, LEN, tagPos, "quantile_values");
        int outer = in.pushLimit(in.readLength("quantile_values"));
        double q = 0;
        double v = 0;
        while (in.hasRemaining()) {
            int fieldPos = in.position();
            int fieldTag = readTag(in, "ValueAtQuantile");
            int field = fieldNumber(fieldTag);
            if (field == OtlpSchema.QUANTILE || field == OtlpSchema.QUANTILE_VALUE) {
                expectWireType(in, fieldTag, I64, fieldPos, "ValueAtQuantile");
                double d = Double.longBitsToDouble(in.readLongLE("ValueAtQuantile"));
                if (field == OtlpSchema.QUANTILE) {
                    q = d;
                } else {
                    v = d;
                }
            } else {
                skipField(in, fieldTag, fieldPos, "ValueAtQuantile");
            }
        }
        in.popLimit(outer);
        if (quantileCount == quantiles.length) {
            quantiles = Arrays.copyOf(quantiles, 2 * quantileCount);
            quantileValues = Arrays.copyOf(quantileValues, 2 * quantileCount);
        }
        quantiles[quantileCount] = q;
        quantileValues[quantileCount++] = v;
    }

    private void emit(WireReader in, int pointStart, int kind, byte[] name, int nameLen, OtlpResource resource, MetricSink sink)
            throws PayloadException {
        boolean stale = (flags & OtlpSchema.FLAG_NO_RECORDED_VALUE) != 0;
        long timestampMs = Long.divideUnsigned(timeNanos, 1_000_000L);
        if (kind == NUMBER) {
            if (!hasValue && !stale) {
                pointsWithoutValue++;
                return;
            }
            series(name, nameLen, null, null, resource, sink);
            sample(stale ? STALE : value, timestampMs, resource, sink);
        } else if (kind == HISTOGRAM) {
            if (bucketCount != 0 && bucketCount != boundCount + 1) {
                throw in.error(Reason.BAD_SCHEMA, pointStart, "histogram point has " + bucketCount
                        + " bucket counts for " + boundCount + " bounds; it needs bounds + 1 (or none)");
            }
            histogram(name, nameLen, stale, timestampMs, resource, sink);
        } else {
            for (int i = 0; i < quantileCount; i++) {
                extraValue.reset();
                floats.append(quantiles[i], FloatText.PLAIN, extraValue);
                series(name, nameLen, null, OtlpLabels.QUANTILE, resource, sink);
                sample(stale ? STALE : quantileValues[i], timestampMs, resource, sink);
            }
            hasSum = true;
            sumAndCount(name, nameLen, stale, timestampMs, resource, sink);
        }
    }

    private void histogram(byte[] name, int nameLen, boolean stale, long timestampMs, OtlpResource resource, MetricSink sink) {
        long cumulative = 0;
        for (int i = 0; bucketCount > 0 && i < boundCount; i++) {
            cumulative += bucketCounts[i];
            extraValue.reset();
            floats.append(bounds[i], FloatText.PLAIN, extraValue);
            series(name, nameLen, BUCKET, OtlpLabels.LE, resource, sink);
            sample(stale ? STALE : WireReader.unsignedToDouble(cumulative), timestampMs, resource, sink);
        }
        extraValue.reset();
        extraValue.writeBytes(PLUS_INF, 0, PLUS_INF.length);
        series(name, nameLen, BUCKET, OtlpLabels.LE, resource, sink);
        sample(stale ? STALE : WireReader.unsignedToDouble(count), timestampMs, resource, sink);
        sumAndCount(name, nameLen, stale, timestampMs, resource, sink);
    }

    private void sumAndCount(byte[] name, int nameLen, boolean stale, long timestampMs, OtlpResource resource, MetricSink sink) {
        if (hasSum) {
            series(name, nameLen, SUM, null, resource, sink);
            sample(stale ? STALE : sum, timestampMs, resource, sink);
        }
        series(name, nameLen, COUNT, null, resource, sink);
        sample(stale ? STALE : WireReader.unsignedToDouble(count), timestampMs, resource, sink);
    }

    /**
     * Starts a series named {@code name + suffix}, with {@code extraName} = {@link #extraValue} when given
     * (le or quantile, which then overrides an attribute of that name), and its labels.
     */
    private void series(byte[] name, int nameLen, byte[] suffix, byte[] extraName, OtlpResource resource, MetricSink sink) {
        seriesName.reset();
        seriesName.writeBytes(name, 0, nameLen);
        if (suffix != null) {
            seriesName.writeBytes(suffix, 0, suffix.length);
        }
        sink.beginSeries();
        sink.label(OtlpLabels.METRIC_NAME, 0, OtlpLabels.METRIC_NAME.length, seriesName.buffer(), 0, seriesName.length());
        resource.emitIdentity(sink);
        if (extraName != null) {
            sink.label(extraName, 0, extraName.length, extraValue.buffer(), 0, extraValue.length());
        }
        labels.emit(sink, extraName, null);
        sink.endLabels();
    }

    private static void sample(double v, long timestampMs, OtlpResource resource, MetricSink sink) {
        sink.sample(timestampMs, v);
        resource.sampled(timestampMs);
    }
}
