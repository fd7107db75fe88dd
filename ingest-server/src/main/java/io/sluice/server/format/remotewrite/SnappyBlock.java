package io.sluice.server.format.remotewrite;

import io.airlift.compress.v3.MalformedInputException;
import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;

/**
 * Decompresses a record value holding one snappy block (not framed), as both remote-write versions
 * send it, into a reusable buffer: 64 KiB at first, grown to the largest declared uncompressed size
 * seen and never beyond {@link DecoderLimits#maxUncompressedBytes()}. The size the block declares in
 * its preamble is checked against the limit before anything is allocated.
 *
 * <p>Not thread-safe: owned by one decoder.
 */
final class SnappyBlock {
    static final int INITIAL_BUFFER_BYTES = 64 << 10;

    private final DecoderLimits limits;
    private final SnappyJavaDecompressor snappy = new SnappyJavaDecompressor();
    private byte[] buffer = new byte[INITIAL_BUFFER_BYTES];

    SnappyBlock(DecoderLimits limits) {
        this.limits = limits;
    }

    /**
     * Decompresses {@code value[off, off + len)}, which {@code record} wraps at its start; returns the
     * uncompressed length, the bytes being {@code buffer()[0, length)}.
     */
    int decompress(WireReader record, byte[] value, int off, int len) throws PayloadException {
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
        if (expected > buffer.length) {
            buffer = new byte[(int) Math.min(limits.maxUncompressedBytes(), Math.max(expected, 2L * buffer.length))];
        }
        int actual;
        try {
            actual = snappy.decompress(value, off, len, buffer, 0, expected);
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

    /** The reusable buffer the last block was decompressed into. */
    byte[] buffer() {
        return buffer;
    }

    /** The buffer's current size (for memory gauges and tests). */
    int bufferBytes() {
        return buffer.length;
    }
}
