package io.sluice.server.format.remotewrite;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;

/**
 * What both remote-write decoders do: check the record's size, decompress its snappy block into the
 * reusable buffer of a {@link SnappyBlock}, read the request with the version's {@link RequestReader}
 * and add what it skipped to the totals (only for records that decoded).
 *
 * <p>Not thread-safe: one instance per consumer thread, and every field is owned by that thread.
 */
abstract class SnappyRequestDecoder implements PayloadDecoder {
    private final DecoderLimits limits;
    private final SnappyBlock snappy;
    private final WireReader record = new WireReader();
    private final WireReader request = new WireReader();
    private final RequestReader reader;
    private final String region;

    private long histogramsSkippedTotal;
    private long exemplarsSkippedTotal;
    private long metadataSkippedTotal;
    private long seriesWithoutSamplesTotal;

    /** @param region names the uncompressed request in error messages, a constant */
    SnappyRequestDecoder(DecoderLimits limits, RequestReader reader, String region) {
        this.limits = limits;
        this.snappy = new SnappyBlock(limits);
        this.reader = reader;
        this.region = region;
    }

    @Override
    public final void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        record.wrapRecord(value, off, len, limits);
        int uncompressedLength = snappy.decompress(record, value, off, len);
        request.wrap(snappy.buffer(), 0, uncompressedLength, region);
        reader.read(request, sink);
        RequestReader.SkipCounts skipped = reader.skipped();
        histogramsSkippedTotal += skipped.histograms;
        exemplarsSkippedTotal += skipped.exemplars;
        metadataSkippedTotal += skipped.metadata;
        seriesWithoutSamplesTotal += skipped.seriesWithoutSamples;
    }

    /** See {@link RemoteWriteDecoder#SKIP_REASONS} for the indexes. */
    @Override
    public final long skippedInLastRecord(int reason) {
        RequestReader.SkipCounts skipped = reader.skipped();
        return switch (reason) {
            case 0 -> skipped.histograms;
            case 1 -> skipped.exemplars;
            case 2 -> skipped.metadata;
            case 3 -> skipped.seriesWithoutSamples;
            default -> 0;
        };
    }

    /** Native histograms skipped in records that decoded, since this decoder was created. */
    public final long histogramsSkippedTotal() {
        return histogramsSkippedTotal;
    }

    /** Exemplars skipped in records that decoded. */
    public final long exemplarsSkippedTotal() {
        return exemplarsSkippedTotal;
    }

    /** Metadata entries skipped in records that decoded (1.0: MetricMetadata; 2.0: a TimeSeries' Metadata). */
    public final long metadataSkippedTotal() {
        return metadataSkippedTotal;
    }

    /** TimeSeries without float samples (e.g. histograms only) in records that decoded; they emit nothing. */
    public final long seriesWithoutSamplesTotal() {
        return seriesWithoutSamplesTotal;
    }

    /** The current size of the reusable decompression buffer (for memory gauges and tests). */
    public final int bufferBytes() {
        return snappy.bufferBytes();
    }
}
