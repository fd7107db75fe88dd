package io.sluice.server.format;

/**
 * Memory bounds of one decoder, configured per topic. A record beyond a bound is rejected with
 * {@link PayloadException.Reason#TOO_LARGE} before anything is allocated for it.
 *
 * @param maxRecordBytes the largest record value accepted, compressed as it arrives from Kafka
 * @param maxUncompressedBytes the largest declared uncompressed size of a compressed format; also the
 *     most a decoder's reusable decompression buffer grows to (retained per consumer thread)
 */
public record DecoderLimits(int maxRecordBytes, int maxUncompressedBytes) {
    /** 8 MiB: eight times Kafka's default max.message.bytes (1 MiB). */
    public static final int DEFAULT_MAX_RECORD_BYTES = 8 << 20;
    /** 32 MiB: the limit Prometheus' own remote-write receiver puts on a decoded request body. */
    public static final int DEFAULT_MAX_UNCOMPRESSED_BYTES = 32 << 20;

    public static final DecoderLimits DEFAULTS =
            new DecoderLimits(DEFAULT_MAX_RECORD_BYTES, DEFAULT_MAX_UNCOMPRESSED_BYTES);

    /** Rejects a record value longer than {@link #maxRecordBytes()}: the first check of every decoder. */
    public void checkRecordSize(int recordBytes) throws PayloadException {
        if (recordBytes > maxRecordBytes) {
            throw new PayloadException(PayloadException.Reason.TOO_LARGE, 0, "record", "record of " + recordBytes
                    + " bytes exceeds maxRecordBytes " + maxRecordBytes);
        }
    }

    public DecoderLimits {
        if (maxRecordBytes <= 0 || maxUncompressedBytes <= 0) {
            throw new IllegalArgumentException("limits must be positive: maxRecordBytes=" + maxRecordBytes
                    + ", maxUncompressedBytes=" + maxUncompressedBytes);
        }
    }
}
