package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.tag;

import io.sluice.server.format.ByteWriter;
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
    private boolean inSeries;
    private int seriesSamples;

    public RemoteWriteEncoder(int initialCapacityBytes) {
        request = new ByteWriter(initialCapacityBytes);
        series = new ByteWriter(1024);
    }

    /** Starts a new request, forgetting the previous one. */
    @Override
    public void reset() {
        request.reset();
        inSeries = false;
        snappy.clear();
    }

    @Override
    public void beginSeries() {
        if (inSeries) {
            throw new IllegalStateException("beginSeries() before endSeries() of the previous series");
        }
        series.reset();
        inSeries = true;
        seriesSamples = 0;
    }

    @Override
    public void label(byte[] name, byte[] value) {
        label(name, 0, name.length, value, 0, value.length);
    }

    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        requireSeries();
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
        requireSeries();
        series.writeByte(SAMPLE_TAG);
        series.writeVarint(1 + 8 + 1 + ByteWriter.varintSize(timestampMs));
        series.writeByte(SAMPLE_VALUE_TAG);
        series.writeLongLE(Double.doubleToRawLongBits(value));
        series.writeByte(SAMPLE_TIMESTAMP_TAG);
        series.writeVarint(timestampMs);
        seriesSamples++;
    }

    @Override
    public void endSeries() {
        requireSeries();
        if (seriesSamples == 0) {
            throw new IllegalStateException("a series needs at least one sample");
        }
        request.writeByte(TIMESERIES_TAG);
        request.writeVarint(series.length());
        request.writeBytes(series.buffer(), 0, series.length());
        inSeries = false;
    }

    /** Compresses the request; returns the record value's length, its bytes being {@link #compressed()}. */
    public int finish() {
        if (inSeries) {
            throw new IllegalStateException("finish() inside a series: call endSeries() first");
        }
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
    public int valueOffset(int i) {
        return 0;
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

    private void requireSeries() {
        if (!inSeries) {
            throw new IllegalStateException("call beginSeries() first");
        }
    }
}
