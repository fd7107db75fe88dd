package io.sluice.tools.loadgen;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.RecordEncoder;
import io.sluice.server.format.influx.InfluxEncoder;
import io.sluice.server.format.json.JsonEncoder;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.otlp.OtlpEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteV2Encoder;
import java.nio.charset.StandardCharsets;

/**
 * Encodes records of a {@link NodeExporterModel}'s series in one payload format: {@code begin}, then
 * per series {@code beginSeries, sample+, endSeries}, then {@code finish}. The result is
 * {@link #values()} Kafka record values, value i being {@code bytes()[valueOffset(i), valueOffset(i) +
 * valueLength(i))}: one for every format but json, which writes one value per sample as
 * prometheus-kafka-adapter does. Records need the {@link #contentType()} header if it is not null
 * (remote-write 2.0, so that any remote-write topic reads them as 2.0).
 *
 * <p>Native batches use delta timestamps (and a CRC32C if asked: Kafka already checks its record
 * batches) with canonical labels cached per series; the other formats get the labels in the model's
 * order (unsorted, as some senders do) through their {@link RecordEncoder}. Reusable; not thread-safe.
 */
public final class PayloadWriter {
    private final NodeExporterModel model;
    private final NativeBatchEncoder nativeBatch;   // null unless the format is sluice
    private final RecordEncoder encoder;            // null if the format is sluice
    private final NodeExporterModel.LabelConsumer encoderLabels;
    private final byte[][] canonical;
    private final byte[] contentType;
    private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();
    private int values;

    /**
     * @param series the model's series count (series numbers are below it)
     */
    public PayloadWriter(PayloadFormat format, NodeExporterModel model, int series, boolean crc32c) {
        this.model = model;
        boolean isNative = format == PayloadFormat.SLUICE;
        this.nativeBatch = isNative ? new NativeBatchEncoder(1 << 20, true, crc32c) : null;
        this.encoder = isNative ? null : encoder(format);
        this.encoderLabels = isNative ? null : (n, v) -> encoder.label(n, v); // bound once: no allocation per series
        this.canonical = isNative ? new byte[series][] : null;
        String type = isNative ? null : encoder.contentType();
        this.contentType = type == null ? null : type.getBytes(StandardCharsets.US_ASCII);
    }

    /** A new encoder of {@code format}, any but sluice (whose encoder takes canonical labels). */
    public static RecordEncoder encoder(PayloadFormat format) {
        return switch (format) {
            case PROMETHEUS_REMOTE_WRITE -> new RemoteWriteEncoder(1 << 20);
            case PROMETHEUS_REMOTE_WRITE_V2 -> new RemoteWriteV2Encoder(1 << 20);
            case INFLUX -> new InfluxEncoder(1 << 20);
            case OTLP -> new OtlpEncoder(1 << 20);
            case JSON -> new JsonEncoder(1 << 20);
            case SLUICE -> throw new IllegalArgumentException("the native batch encoder takes canonical labels: NativeBatchEncoder");
        };
    }

    /** Whether this writer (and so the load generator and the demo) can produce {@code format}: all of them. */
    public static boolean writes(PayloadFormat format) {
        return format != null;
    }

    /** The load generator's writer: no CRC. */
    public static PayloadWriter of(PayloadFormat format, NodeExporterModel model, int series) {
        return new PayloadWriter(format, model, series, false);
    }

    /** Starts a record; {@code baseTimestampMs} is what native delta timestamps count from. */
    public void begin(long baseTimestampMs) {
        if (nativeBatch != null) {
            nativeBatch.reset(baseTimestampMs);
        } else {
            encoder.reset();
        }
    }

    public void beginSeries(int series) {
        if (nativeBatch != null) {
            byte[] labels = canonical[series];
            if (labels == null) {
                labels = model.canonicalLabels(series, builder);
                canonical[series] = labels;
            }
            nativeBatch.beginSeries(labels);
        } else {
            encoder.beginSeries();
            model.labels(series, encoderLabels);
        }
    }

    public void sample(long timestampMs, double value) {
        if (nativeBatch != null) {
            nativeBatch.sample(timestampMs, value);
        } else {
            encoder.sample(timestampMs, value);
        }
    }

    public void endSeries() {
        if (nativeBatch != null) {
            nativeBatch.endSeries();
        } else {
            encoder.endSeries();
        }
    }

    /** Completes the record; returns the length of its first (for all formats but json: only) value. */
    public int finish() {
        if (nativeBatch != null) {
            values = 1;
            return nativeBatch.finish();
        }
        values = encoder.finishValues();
        return values == 0 ? 0 : encoder.valueLength(0);
    }

    /** How many record values the last {@link #finish()} wrote. */
    public int values() {
        return values;
    }

    public int valueOffset(int i) {
        return nativeBatch != null ? 0 : encoder.valueOffset(i);
    }

    public int valueLength(int i) {
        return nativeBatch != null ? nativeBatch.length() : encoder.valueLength(i);
    }

    /** The bytes of the values after {@link #finish()}. */
    public byte[] bytes() {
        return nativeBatch != null ? nativeBatch.buffer() : encoder.buffer();
    }

    /** The Content-Type header value the records need (ASCII), or null; the same array every time. */
    public byte[] contentType() {
        return contentType;
    }
}
