package io.sluice.server.loadgen;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;

/**
 * Encodes records of a {@link NodeExporterModel}'s series in one payload format: {@code begin}, then
 * per series {@code beginSeries, sample+, endSeries}, then {@code finish}; the value is
 * {@code bytes()[0, finish())}. Native batches use delta timestamps (and a CRC32C if asked: Kafka
 * already checks its record batches) with canonical labels cached per series; remote-write requests
 * carry the labels in the model's order (unsorted, as some senders do). Reusable; not thread-safe.
 */
public final class PayloadWriter {
    private final NodeExporterModel model;
    private final NativeBatchEncoder nativeBatch;   // null unless the format is sluice
    private final RemoteWriteEncoder remoteWrite;   // null unless the format is prometheus-remote-write
    private final NodeExporterModel.LabelConsumer remoteWriteLabels;
    private final byte[][] canonical;
    private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();

    /**
     * @param series the model's series count (series numbers are below it)
     */
    public PayloadWriter(PayloadFormat format, NodeExporterModel model, int series, boolean crc32c) {
        if (!writes(format)) {
            throw new IllegalArgumentException("the load generator writes prometheus-remote-write and sluice, not " + format.configName());
        }
        this.model = model;
        boolean isNative = format == PayloadFormat.SLUICE;
        this.nativeBatch = isNative ? new NativeBatchEncoder(1 << 20, true, crc32c) : null;
        this.remoteWrite = isNative ? null : new RemoteWriteEncoder(1 << 20);
        this.remoteWriteLabels = isNative ? null : (n, v) -> remoteWrite.label(n, v); // bound once: no allocation per series
        this.canonical = isNative ? new byte[series][] : null;
    }

    /** Whether this writer (and so the load generator and the demo) can produce {@code format}. */
    public static boolean writes(PayloadFormat format) {
        return format == PayloadFormat.SLUICE || format == PayloadFormat.PROMETHEUS_REMOTE_WRITE;
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
            remoteWrite.reset();
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
            remoteWrite.beginSeries();
            model.labels(series, remoteWriteLabels);
        }
    }

    public void sample(long timestampMs, double value) {
        if (nativeBatch != null) {
            nativeBatch.sample(timestampMs, value);
        } else {
            remoteWrite.sample(timestampMs, value);
        }
    }

    public void endSeries() {
        if (nativeBatch != null) {
            nativeBatch.endSeries();
        } else {
            remoteWrite.endSeries();
        }
    }

    /** Completes the record; returns its length. */
    public int finish() {
        return nativeBatch != null ? nativeBatch.finish() : remoteWrite.finish();
    }

    /** The record's bytes after {@link #finish()}: {@code bytes()[0, finish())}. */
    public byte[] bytes() {
        return nativeBatch != null ? nativeBatch.buffer() : remoteWrite.compressed();
    }
}
