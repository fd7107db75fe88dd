package io.sluice.server.format;

/**
 * A sink that only counts and folds what it receives into a checksum, allocating nothing: the sink of
 * the allocation tests, so that every byte they measure is the decoder's.
 */
public final class CountingSink implements MetricSink {
    private long series;
    private long labels;
    private long samples;
    private long checksum;

    @Override
    public void beginSeries() {
        series++;
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        labels++;
        checksum += nameLen + valueLen + nameBuf[nameOff];
    }

    @Override
    public void endLabels() {
        checksum++;
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        series++;
        checksum += len + buf[off];
    }

    @Override
    public void sample(long timestampMs, double value) {
        samples++;
        checksum = checksum * 31 + timestampMs + Double.doubleToRawLongBits(value);
    }

    public long series() {
        return series;
    }

    public long labels() {
        return labels;
    }

    public long samples() {
        return samples;
    }

    public long checksum() {
        return checksum;
    }
}
