package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.tag;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.EncoderState;
import io.sluice.server.format.RecordEncoder;

/**
 * Writes {@code prometheus-remote-write} record values: a snappy-compressed remote-write 1.0
 * {@code WriteRequest}, for the load generator, the demo and tests. Reusable and allocation-free once
 * its buffers have grown to the largest request: {@code reset()}, then per series
 * {@code beginSeries(), label()*, sample()+, endSeries()}, then {@code finish()}.
 *
 * <p>Labels are written in the order given (Prometheus sorts them; the decoder does not care).
 * Every Sample carries both fields, also when they are zero, so -0.0 and NaN payloads round-trip.
 * Not thread-safe.
 */
public final class RemoteWriteEncoder implements RecordEncoder {
    private static final int LABEL_TAG = tag(RemoteWriteSchema.TIMESERIES_LABELS, LEN);
    private static final int SAMPLE_TAG = tag(RemoteWriteSchema.TIMESERIES_SAMPLES, LEN);
    private static final int TIMESERIES_TAG = tag(RemoteWriteSchema.WRITE_REQUEST_TIMESERIES, LEN);
    private static final int NAME_TAG = tag(RemoteWriteSchema.LABEL_NAME, LEN);
    private static final int VALUE_TAG = tag(RemoteWriteSchema.LABEL_VALUE, LEN);
    private static final int SAMPLE_VALUE_TAG = tag(RemoteWriteSchema.SAMPLE_VALUE, I64);
    private static final int SAMPLE_TIMESTAMP_TAG = tag(RemoteWriteSchema.SAMPLE_TIMESTAMP, VARINT);

    private final ByteWriter request;
    private final ByteWriter series;
    private final SnappyWriter snappy = new SnappyWriter();
    private final EncoderState state = new EncoderState();

    public RemoteWriteEncoder(int initialCapacityBytes) {
        request = new ByteWriter(initialCapacityBytes);
        series = new ByteWriter(1024);
    }

    /** Starts a new request, forgetting the previous one. */
    @Override
    public void reset() {
        request.reset();
        state.reset();
        snappy.clear();
    }

    @Override
    public void beginSeries() {
        state.beginSeries();
        series.reset();
    }

    @Override
    public void label(byte[] name, byte[] value) {
        label(name, 0, name.length, value, 0, value.length);
    }

    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        state.requireSeries();
        int body = 1 + ByteWriter.varintSize(nameLen) + nameLen + 1 + ByteWriter.varintSize(valueLen) + valueLen;
        series.writeByte(LABEL_TAG);
        series.writeVarint(body);
        series.writeByte(NAME_TAG);
        series.writeVarint(nameLen);
        series.writeBytes(nameBuf, nameOff, nameLen);
        series.writeByte(VALUE_TAG);
        series.writeVarint(valueLen);
        series.writeBytes(valueBuf, valueOff, valueLen);
    }

    /** Appends a sample; the value's bits are written as they are (NaN payloads included). */
    @Override
    public void sample(long timestampMs, double value) {
        state.sample();
        writeSample(series, SAMPLE_TAG, timestampMs, value);
    }

    /** A Sample message (the same in 1.0 and 2.0) as field {@code fieldTag}, both fields written. */
    static void writeSample(ByteWriter to, int fieldTag, long timestampMs, double value) {
        to.writeByte(fieldTag);
        to.writeVarint(1 + 8 + 1 + ByteWriter.varintSize(timestampMs));
        to.writeByte(SAMPLE_VALUE_TAG);
        to.writeLongLE(Double.doubleToRawLongBits(value));
        to.writeByte(SAMPLE_TIMESTAMP_TAG);
        to.writeVarint(timestampMs);
    }

    @Override
    public void endSeries() {
        state.endSeries();
        request.writeByte(TIMESERIES_TAG);
        request.writeVarint(series.length());
        request.writeBytes(series.buffer(), 0, series.length());
    }

    /** Compresses the request; returns the record value's length, its bytes being {@link #compressed()}. */
    public int finish() {
        state.finish();
        return snappy.compress(request.buffer(), request.length());
    }

    /** The record value after {@link #finish()}: {@code compressed()[0, compressedLength())}. */
    public byte[] compressed() {
        return snappy.buffer();
    }

    public int compressedLength() {
        return snappy.length();
    }

    @Override
    public int finishValues() {
        finish();
        return 1;
    }

    @Override
    public byte[] buffer() {
        return snappy.buffer();
    }

    @Override
    public int valueLength(int i) {
        return snappy.length();
    }

    /** The protobuf WriteRequest written so far: {@code uncompressed()[0, uncompressedLength())}. */
    public byte[] uncompressed() {
        return request.buffer();
    }

    public int uncompressedLength() {
        return request.length();
    }
}
