package io.sluice.core.chunk;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The bytes of one XOR chunk, exactly as Prometheus' {@code XORChunk.Bytes()} returns them
 * (tsdb/chunkenc/xor.go, module v0.314.0), so a chunk can be written into a TSDB block unchanged.
 *
 * <pre>
 *  0               2
 *  +---------------+--------------------------------------------------------------+
 *  | numSamples    | bit stream, most significant bit of each byte first           |
 *  | uint16 BE     | ceil(bits / 8) bytes; bits after the last one are zero        |
 *  +---------------+--------------------------------------------------------------+
 *
 *  sample 0 : varint(t) (zig-zag, 1-10 bytes)  value bits (64)
 *  sample 1 : uvarint(t1 - t0) (1-10 bytes)     value code
 *  sample n : timestamp code                   value code
 *
 *  timestamp code, dod = (t[n] - t[n-1]) - (t[n-1] - t[n-2]):
 *    '0'                         dod == 0
 *    '10'   + 14 bits            -8191   <= dod <= 8192
 *    '110'  + 17 bits            -65535  <= dod <= 65536
 *    '1110' + 20 bits            -524287 <= dod <= 524288
 *    '1111' + 64 bits            anything else
 *    (a payload above 2^(n-1) reads back as payload - 2^n: the ranges are asymmetric on purpose)
 *
 *  value code, x = bits(v[n]) XOR bits(v[n-1]):
 *    '0'                                          x == 0
 *    '10' + (64 - L - T) bits of x >>> T           x fits the previous window (L, T)
 *    '11' + L (5 bits) + M (6 bits, 64 written as 0) + M bits of x >>> T
 *         where L = min(leading zeros of x, 31), T = trailing zeros of x, M = 64 - L - T
 * </pre>
 *
 * <p>The header count is rewritten on every append, so a reader on another thread must not trust
 * it for an open chunk: it reads the count the appender published in its state
 * ({@link XorStateDescriptor#publishedNumSamples}) and decodes at most that many samples.
 */
public final class XorChunkDescriptor {
    /** The uint16 big-endian sample count at the start of every chunk. */
    public static final int HEADER_BYTES = 2;
    public static final int NUM_SAMPLES_OFFSET = 0;
    /** Prometheus stores the count in a uint16: no chunk holds more samples. */
    public static final int MAX_SAMPLES = 0xFFFF;

    /** The window of the leading-zero count is 5 bits, so counts of 32 and more are written as 31. */
    static final int MAX_LEADING_ZEROS = 31;

    static final ValueLayout.OfLong BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort BIG_ENDIAN_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private XorChunkDescriptor() {
    }

    /** The count in the chunk's header; only trustworthy for a closed chunk or on the writer's thread. */
    public static int headerNumSamples(MemorySegment chunk, long chunkOffset) {
        return Short.toUnsignedInt(chunk.get(BIG_ENDIAN_SHORT, chunkOffset + NUM_SAMPLES_OFFSET));
    }

    /** The count in the header of a chunk held in a byte array (tests, remote-read responses). */
    public static int headerNumSamples(byte[] chunk) {
        if (chunk.length < HEADER_BYTES) {
            throw new IllegalArgumentException("a chunk has a " + HEADER_BYTES + "-byte header, got " + chunk.length + " bytes");
        }
        return ((chunk[0] & 0xFF) << 8) | (chunk[1] & 0xFF);
    }
}
