package io.sluice.server.format.remotewrite;

import io.airlift.compress.v3.MalformedInputException;
import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;

/**
 * Decodes {@code prometheus-remote-write} records: a snappy block (not framed) holding a
 * remote-write 1.0 protobuf {@code WriteRequest}, as Prometheus POSTs it.
 *
 * <p>Memory: one reusable decompression buffer, 64 KiB at first, grown to the largest declared
 * uncompressed size seen and never beyond {@link DecoderLimits#maxUncompressedBytes()}. The size a
 * snappy block declares in its preamble is checked against the limit before anything is allocated.
 *
 * <p>What is skipped, and counted once the record decodes: native histograms (this release stores
 * float samples only; a series that carries nothing but histograms emits nothing), exemplars and
 * metadata. Skipping rather than rejecting keeps the float samples that Prometheus sends in the same
 * request. See docs/format/remote-write.md.
 *
 * <p>Not thread-safe: one instance per consumer thread, and every field is owned by that thread.
 */
public final class RemoteWriteDecoder implements PayloadDecoder {
    static final int INITIAL_BUFFER_BYTES = 64 << 10;
    private static final String UNCOMPRESSED = "uncompressed WriteRequest";

    private final DecoderLimits limits;
    private final SnappyJavaDecompressor snappy = new SnappyJavaDecompressor();
    private final WireReader record = new WireReader();
    private final WireReader request = new WireReader();
    private final WriteRequestReader reader = new WriteRequestReader();
    private byte[] uncompressed = new byte[INITIAL_BUFFER_BYTES];

    private long histogramsSkippedTotal;
    private long exemplarsSkippedTotal;
    private long metadataSkippedTotal;
    private long seriesWithoutSamplesTotal;

    public RemoteWriteDecoder(DecoderLimits limits) {
        this.limits = limits;
    }

    @Override
    public void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        record.wrapRecord(value, off, len, limits);
        int uncompressedLength = decompress(value, off, len);
        request.wrap(uncompressed, 0, uncompressedLength, UNCOMPRESSED);
        reader.read(request, sink);
        histogramsSkippedTotal += reader.histogramsSkipped();
        exemplarsSkippedTotal += reader.exemplarsSkipped();
        metadataSkippedTotal += reader.metadataSkipped();
        seriesWithoutSamplesTotal += reader.seriesWithoutSamples();
    }

    /** Decompresses the record into the reusable buffer; returns the uncompressed length. */
    private int decompress(byte[] value, int off, int len) throws PayloadException {
        // The snappy preamble: the uncompressed length as a varint of at most 32 bits.
        long declared = record.readVarint("snappy preamble");
        if (declared > 0xFFFF_FFFFL || declared < 0) {
            throw record.error(Reason.BAD_COMPRESSION, off, "snappy preamble declares " + Long.toUnsignedString(declared)
                    + " bytes, more than 32 bits");
        }
        if (declared > limits.maxUncompressedBytes()) {
            throw record.error(Reason.TOO_LARGE, off, "snappy block declares " + declared
                    + " uncompressed bytes, more than maxUncompressedBytes " + limits.maxUncompressedBytes());
        }
        int expected = (int) declared;
        if (expected > uncompressed.length) {
            uncompressed = new byte[(int) Math.min(limits.maxUncompressedBytes(),
                    Math.max(expected, 2L * uncompressed.length))];
        }
        int actual;
        try {
            actual = snappy.decompress(value, off, len, uncompressed, 0, expected);
        } catch (MalformedInputException e) {
            long at = Math.clamp(e.getOffset(), 0, len);
            throw record.error(Reason.BAD_COMPRESSION, off + (int) at, "snappy: " + e.getMessage());
        }
        if (actual != expected) {
            throw record.error(Reason.BAD_COMPRESSION, off, "snappy block declares " + expected
                    + " uncompressed bytes but holds " + actual);
        }
        return actual;
    }

    /** Native histograms skipped in records that decoded, since this decoder was created. */
    public long histogramsSkippedTotal() {
        return histogramsSkippedTotal;
    }

    /** Exemplars skipped in records that decoded. */
    public long exemplarsSkippedTotal() {
        return exemplarsSkippedTotal;
    }

    /** MetricMetadata entries skipped in records that decoded. */
    public long metadataSkippedTotal() {
        return metadataSkippedTotal;
    }

    /** TimeSeries without float samples (e.g. histograms only) in records that decoded; they emit nothing. */
    public long seriesWithoutSamplesTotal() {
        return seriesWithoutSamplesTotal;
    }

    /** The current size of the reusable decompression buffer (for memory gauges and tests). */
    public int bufferBytes() {
        return uncompressed.length;
    }
}
