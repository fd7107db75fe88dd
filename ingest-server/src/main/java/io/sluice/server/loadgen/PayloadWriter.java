package io.sluice.server.loadgen;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;

/**
 * Encodes the load generator's records in one payload format: {@code begin}, then per series
 * {@code beginSeries, sample+, endSeries}, then {@code finish}; the value is {@code bytes()[0, finish())}.
 * Reusable; not thread-safe.
 */
public abstract sealed class PayloadWriter {
    public abstract void begin(long baseTimestampMs);

    public abstract void beginSeries(int series);

    public abstract void sample(long timestampMs, double value);

    public abstract void endSeries();

    /** Completes the record; returns its length. */
    public abstract int finish();

    public abstract byte[] bytes();

    /** A writer for {@code format}'s records of {@code model}'s series. */
    public static PayloadWriter of(PayloadFormat format, NodeExporterModel model, int series) {
        return switch (format) {
            case SLUICE -> new Native(model, series);
            case PROMETHEUS_REMOTE_WRITE -> new RemoteWrite(model);
        };
    }

    /** Native batches with delta timestamps, no CRC (Kafka checks its batches); canonical labels cached per series. */
    static final class Native extends PayloadWriter {
        private final NativeBatchEncoder encoder = new NativeBatchEncoder(1 << 20, true, false);
        private final NodeExporterModel model;
        private final byte[][] canonical;
        private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();

        Native(NodeExporterModel model, int series) {
            this.model = model;
            this.canonical = new byte[series][];
        }

        @Override
        public void begin(long baseTimestampMs) {
            encoder.reset(baseTimestampMs);
        }

        @Override
        public void beginSeries(int series) {
            byte[] labels = canonical[series];
            if (labels == null) {
                labels = model.canonicalLabels(series, builder);
                canonical[series] = labels;
            }
            encoder.beginSeries(labels);
        }

        @Override
        public void sample(long timestampMs, double value) {
            encoder.sample(timestampMs, value);
        }

        @Override
        public void endSeries() {
            encoder.endSeries();
        }

        @Override
        public int finish() {
            return encoder.finish();
        }

        @Override
        public byte[] bytes() {
            return encoder.buffer();
        }
    }

    /** Remote-write 1.0 requests, labels in the model's order (unsorted, as some senders do). */
    static final class RemoteWrite extends PayloadWriter {
        private final RemoteWriteEncoder encoder = new RemoteWriteEncoder(1 << 20);
        private final NodeExporterModel model;
        private final NodeExporterModel.LabelConsumer labels = (n, v) -> encoder.label(n, v); // bound once

        RemoteWrite(NodeExporterModel model) {
            this.model = model;
        }

        @Override
        public void begin(long baseTimestampMs) {
            encoder.reset();
        }

        @Override
        public void beginSeries(int series) {
            encoder.beginSeries();
            model.labels(series, labels);
        }

        @Override
        public void sample(long timestampMs, double value) {
            encoder.sample(timestampMs, value);
        }

        @Override
        public void endSeries() {
            encoder.endSeries();
        }

        @Override
        public int finish() {
            return encoder.finish();
        }

        @Override
        public byte[] bytes() {
            return encoder.compressed();
        }
    }
}
