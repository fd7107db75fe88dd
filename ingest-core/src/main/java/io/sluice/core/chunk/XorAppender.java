package io.sluice.core.chunk;

import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_LONG;
import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_SHORT;
import static io.sluice.core.chunk.XorChunkDescriptor.HEADER_BYTES;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_LEADING_ZEROS;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_SAMPLES;
import static io.sluice.core.chunk.XorStateDescriptor.BIT_LENGTH_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.FIRST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_DELTA_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_VALUE_BITS_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LEADING_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.NO_WINDOW;
import static io.sluice.core.chunk.XorStateDescriptor.TRAILING_OFFSET;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Appends samples to an XOR chunk ({@link XorChunkDescriptor}), producing Prometheus' bytes bit for
 * bit. A reusable flyweight: all state lives in a {@link XorStateDescriptor} struct the caller owns,
 * so one appender per shard thread serves every series. Allocates nothing.
 *
 * <p>Writing bits: each code is written with one 64-bit big-endian read-modify-write at the byte
 * holding the next free bit (plus one byte store when the code straddles that window). The write
 * keeps the bits already written in that byte and clears every bit after the code up to the end of
 * the 8-byte window, so the block needs no zeroing and the last byte's padding is always zero. The
 * cost is {@link #WRITE_SLACK_BYTES} bytes the appender may touch past the written end: a chunk's
 * capacity must cover its bytes, a worst-case sample and that slack before a sample is accepted.
 *
 * <p>Publication: the sample's bytes, the header count and the state fields are written first, then
 * the count in the state with release semantics. Bits before the published length never change
 * (the read-modify-write stores them back unchanged); bytes after it are in flux.
 *
 * <p>Thread: the single writer of the wrapped state and chunk (the shard thread).
 */
public final class XorAppender {
    /**
     * Worst case of one sample: the second sample's 10-byte uvarint delta (80 bits) plus a value that
     * opens a 64-bit window (2 + 5 + 6 + 64 bits) = 157 bits. Later samples need at most 4 + 64 + 77.
     */
    public static final int MAX_BITS_PER_SAMPLE = 157;
    /** {@link #MAX_BITS_PER_SAMPLE} in whole bytes (20). */
    public static final int MAX_BYTES_PER_SAMPLE = (MAX_BITS_PER_SAMPLE + Byte.SIZE - 1) / Byte.SIZE;
    /** Bytes past the written end a write may touch: the 8-byte window at the end byte, plus one straddle byte, minus that end byte. */
    public static final int WRITE_SLACK_BYTES = 8;
    /** The smallest capacity that accepts a first sample. */
    public static final int MIN_CAPACITY_BYTES = HEADER_BYTES + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    // Owned by the appending thread; set by wrap().
    private MemorySegment state;
    private long stateOffset;
    private MemorySegment chunk;
    private long chunkOffset;
    private int capacityBytes;

    /**
     * Points this appender at a state struct and the chunk bytes it describes. The chunk may have
     * been moved (copied to a bigger block) since the last append: the state is relative to it.
     *
     * @param capacityBytes bytes of {@code chunk} from {@code chunkOffset} the appender may write
     *     (the block size); must hold the bytes already written
     */
    public XorAppender wrap(MemorySegment state, long stateOffset, MemorySegment chunk, long chunkOffset, int capacityBytes) {
        if (capacityBytes < HEADER_BYTES || chunkOffset < 0 || chunkOffset + capacityBytes > chunk.byteSize()) {
            throw new IllegalArgumentException("capacity " + capacityBytes + " at offset " + chunkOffset
                    + " outside a segment of " + chunk.byteSize() + " bytes");
        }
        this.state = state;
        this.stateOffset = stateOffset;
        this.chunk = chunk;
        this.chunkOffset = chunkOffset;
        this.capacityBytes = capacityBytes;
        int written = byteLength();
        if (written > capacityBytes) {
            throw new IllegalArgumentException("chunk of " + written + " bytes wrapped with capacity " + capacityBytes);
        }
        if (numSamples() == 0) {
            chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) 0);
        }
        return this;
    }

    /** {@link #append(long, long)} with the value's raw bits (NaN payloads kept). */
    public boolean append(long timestampMs, double value) {
        return append(timestampMs, Double.doubleToRawLongBits(value));
    }

    /**
     * Appends one sample. Timestamps are encoded as given (ordering is the caller's business, as in
     * Prometheus' appender).
     *
     * @return false, with nothing written, when the capacity cannot take a worst-case sample or the
     *     chunk holds {@link XorChunkDescriptor#MAX_SAMPLES}; the caller grows the block or cuts
     */
    public boolean append(long timestampMs, long valueBits) {
        final MemorySegment s = state;
        final long so = stateOffset;
        final int num = XorStateDescriptor.numSamples(s, so);
        final long start = s.get(INT, so + BIT_LENGTH_OFFSET);
        if (num == MAX_SAMPLES || !hasRoom(start)) {
            return false;
        }
        final long delta = timestampMs - s.get(LONG, so + LAST_TIMESTAMP_OFFSET);
        final long end;
        if (num == 0) {
            end = put(putVarint(start, (timestampMs << 1) ^ (timestampMs >> 63)), valueBits, Long.SIZE);
            s.set(LONG, so + FIRST_TIMESTAMP_OFFSET, timestampMs);
            s.set(LONG, so + LAST_DELTA_OFFSET, 0L);
        } else {
            final long xor = valueBits ^ s.get(LONG, so + LAST_VALUE_BITS_OFFSET);
            if (num == 1) {
                end = putValue(putVarint(start, delta), 0L, 0, xor);
            } else {
                end = putDeltaOfDelta(start, delta - s.get(LONG, so + LAST_DELTA_OFFSET), xor);
            }
            s.set(LONG, so + LAST_DELTA_OFFSET, delta);
        }
        s.set(LONG, so + LAST_TIMESTAMP_OFFSET, timestampMs);
        s.set(LONG, so + LAST_VALUE_BITS_OFFSET, valueBits);
        s.set(INT, so + BIT_LENGTH_OFFSET, (int) end);
        chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) (num + 1));
        XorStateDescriptor.publishNumSamples(s, so, num + 1);
        return true;
    }

    /** Whether the capacity takes one more worst-case sample. */
    public boolean hasRoomForSample() {
        return hasRoom(state.get(INT, stateOffset + BIT_LENGTH_OFFSET));
    }

    /** The capacity a chunk of {@code byteLength} bytes needs to accept one more sample. */
    public static int requiredCapacityBytes(int byteLength) {
        return byteLength + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;
    }

    public int numSamples() {
        return XorStateDescriptor.numSamples(state, stateOffset);
    }

    /** Bits written, header included. */
    public int bitLength() {
        return state.get(INT, stateOffset + BIT_LENGTH_OFFSET);
    }

    /** The chunk's length as Prometheus' {@code Bytes()} reports it: header plus ceil(bits / 8). */
    public int byteLength() {
        return (bitLength() + Byte.SIZE - 1) >>> 3;
    }

    public int capacityBytes() {
        return capacityBytes;
    }

    /** Timestamp of the first sample; meaningless while {@link #numSamples()} is 0. */
    public long firstTimestampMs() {
        return state.get(LONG, stateOffset + FIRST_TIMESTAMP_OFFSET);
    }

    /** Timestamp of the last sample; meaningless while {@link #numSamples()} is 0. */
    public long lastTimestampMs() {
        return state.get(LONG, stateOffset + LAST_TIMESTAMP_OFFSET);
    }

    /** Raw bits of the last value; meaningless while {@link #numSamples()} is 0. */
    public long lastValueBits() {
        return state.get(LONG, stateOffset + LAST_VALUE_BITS_OFFSET);
    }

    private boolean hasRoom(long bitLength) {
        return ((bitLength + MAX_BITS_PER_SAMPLE + Byte.SIZE - 1) >>> 3) + WRITE_SLACK_BYTES <= capacityBytes;
    }

    /** The timestamp code of samples 2.., then the value code; merged into one write when they fit. */
    private long putDeltaOfDelta(long pos, long dod, long xor) {
        if (dod == 0) {
            return putValue(pos, 0L, 1, xor);
        } else if (fitsBits(dod, 14)) {
            return putValue(pos, (0b10L << 14) | (dod & 0x3FFFL), 16, xor);
        } else if (fitsBits(dod, 17)) {
            return putValue(pos, (0b110L << 17) | (dod & 0x1FFFFL), 20, xor);
        } else if (fitsBits(dod, 20)) {
            return putValue(pos, (0b1110L << 20) | (dod & 0xFFFFFL), 24, xor);
        }
        return putValue(put(put(pos, 0b1111L, 4), dod, Long.SIZE), 0L, 0, xor);
    }

    /** Prometheus' bitRange: -(2^(n-1) - 1) <= x <= 2^(n-1). */
    private static boolean fitsBits(long x, int bits) {
        long half = 1L << (bits - 1);
        return -(half - 1) <= x && x <= half;
    }

    /**
     * Writes {@code prefix} (its low {@code prefixBits} bits, at most 24), then the value code of
     * {@code xor}, in one write when the whole fits 64 bits.
     */
    private long putValue(long pos, long prefix, int prefixBits, long xor) {
        if (xor == 0) {
            return put(pos, prefix << 1, prefixBits + 1);
        }
        final MemorySegment s = state;
        final long so = stateOffset;
        final int leading = Math.min(Long.numberOfLeadingZeros(xor), MAX_LEADING_ZEROS);
        final int trailing = Long.numberOfTrailingZeros(xor);
        final int windowLeading = Byte.toUnsignedInt(s.get(BYTE, so + LEADING_OFFSET));
        final int windowTrailing = s.get(BYTE, so + TRAILING_OFFSET);
        long code;
        int codeBits;
        int significantBits;
        long payload;
        if (windowLeading != NO_WINDOW && leading >= windowLeading && trailing >= windowTrailing) {
            code = (prefix << 2) | 0b10L;
            codeBits = prefixBits + 2;
            significantBits = Long.SIZE - windowLeading - windowTrailing;
            payload = xor >>> windowTrailing;
        } else {
            s.set(BYTE, so + LEADING_OFFSET, (byte) leading);
            s.set(BYTE, so + TRAILING_OFFSET, (byte) trailing);
            significantBits = Long.SIZE - leading - trailing;
            // 64 significant bits do not fit 6 bits: written as 0, read back as 64.
            code = (prefix << 13) | (0b11L << 11) | ((long) leading << 6) | (significantBits & 0x3F);
            codeBits = prefixBits + 13;
            payload = xor >>> trailing;
        }
        if (codeBits + significantBits <= Long.SIZE) {
            return put(pos, (code << significantBits) | payload, codeBits + significantBits);
        }
        return put(put(pos, code, codeBits), payload, significantBits);
    }

    /** Unsigned LEB128, as Go's binary.PutUvarint (PutVarint after zig-zag). */
    private long putVarint(long pos, long value) {
        long rest = value;
        long at = pos;
        while ((rest & ~0x7FL) != 0) {
            at = put(at, (rest & 0x7F) | 0x80, Byte.SIZE);
            rest >>>= 7;
        }
        return put(at, rest, Byte.SIZE);
    }

    /**
     * Writes the low {@code bits} bits of {@code value} (1..64, no higher bits set) at bit {@code pos}
     * of the chunk and returns the position after them.
     */
    private long put(long pos, long value, int bits) {
        final long at = chunkOffset + (pos >>> 3);
        final int used = (int) pos & 7;
        final long kept = chunk.get(BIG_ENDIAN_LONG, at) & ~(-1L >>> used);
        final int shift = Long.SIZE - used - bits;
        if (shift >= 0) {
            chunk.set(BIG_ENDIAN_LONG, at, kept | (value << shift));
        } else {
            chunk.set(BIG_ENDIAN_LONG, at, kept | (value >>> -shift));
            chunk.set(BYTE, at + Long.BYTES, (byte) (value << (Byte.SIZE + shift)));
        }
        return pos + bits;
    }
}
