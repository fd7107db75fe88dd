package io.sluice.server.format.remotewrite;

import io.sluice.server.format.DecoderLimits;
import java.util.List;

/**
 * Decodes {@code prometheus-remote-write} records: a snappy block (not framed) holding a
 * remote-write 1.0 protobuf {@code WriteRequest}, as Prometheus POSTs it, read by {@link WriteRequestReader}.
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
public final class RemoteWriteDecoder extends SnappyRequestDecoder {
    static final int INITIAL_BUFFER_BYTES = SnappyBlock.INITIAL_BUFFER_BYTES;

    /**
     * What both remote-write versions skip in accepted records, by {@code sluice_decode_skipped_total}
     * reason: native histograms, exemplars, metadata entries, series without float samples.
     */
    public static final List<String> SKIP_REASONS = List.of("native_histogram", "exemplar", "metadata", "series_without_samples");

    public RemoteWriteDecoder(DecoderLimits limits) {
        super(limits, new WriteRequestReader(), "uncompressed WriteRequest");
    }
}
