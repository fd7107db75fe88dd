package io.sluice.bench.decode;

import io.sluice.server.format.MetricSink;

/**
 * The sink of the decode benchmarks: counts series, label bytes and samples and folds every sample
 * into a checksum, so the JIT cannot drop the decoding and the sanity test can check it. Allocates
 * nothing, so the benchmark's B/sample is the decoder's own.
 */
public final class DecodeCountingSink implements MetricSink {
    private long series;
    private long labelBytes;
    private long samples;
    private long sampleChecksum;

    static long fold(long checksum, long timestampMs, double value) {
        return checksum * 31 + timestampMs * 7 + Double.doubleToRawLongBits(value);
    }

    public void clear() {
        series = 0;
        labelBytes = 0;
        samples = 0;
        sampleChecksum = 0;
    }

    @Override
    public void beginSeries() {
        series++;
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        labelBytes += nameLen + valueLen;
    }

    @Override
    public void endLabels() {
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        series++;
        labelBytes += len;
    }

    @Override
    public void sample(long timestampMs, double value) {
        samples++;
        sampleChecksum = fold(sampleChecksum, timestampMs, value);
    }

    public long series() {
        return series;
    }

    public long labelBytes() {
        return labelBytes;
    }

    public long samples() {
        return samples;
    }

    public long sampleChecksum() {
        return sampleChecksum;
    }
}
