package io.sluice.server.format.remotewrite;

import io.sluice.server.format.DecoderLimits;

/**
 * Decodes {@code prometheus-remote-write-v2} records (and remote-write records whose Content-Type header
 * says {@code proto=io.prometheus.write.v2.Request}, see {@code PayloadFormat.forRecord}): a snappy
 * block holding a remote-write 2.0 {@code io.prometheus.write.v2.Request}, read by {@link RequestV2Reader}.
 *
 * <p>A 1.0 {@code WriteRequest} is rejected as {@code unsupported_version} (its fields 1–3 are reserved in
 * 2.0), never read as an empty request; the 1.0 decoder rejects a 2.0 request the same way.
 *
 * <p>Skipped, and counted once the record decodes, as in 1.0: native histograms, exemplars, metadata,
 * and series without float samples (their label references are still checked).
 *
 * <p>Memory: the reusable decompression buffer of {@link SnappyBlock}, and the symbol table's span
 * arrays (12 bytes a symbol), grown to the largest request seen. Not thread-safe: one instance per
 * consumer thread.
 */
public final class RemoteWriteV2Decoder extends SnappyRequestDecoder {
    public RemoteWriteV2Decoder(DecoderLimits limits) {
        super(limits, new RequestV2Reader(), "uncompressed remote-write 2.0 Request");
    }
}
