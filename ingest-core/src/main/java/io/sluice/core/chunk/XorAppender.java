package io.sluice.core.chunk;

import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_LONG;
import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_SHORT;
import static io.sluice.core.chunk.XorChunkDescriptor.HEADER_BYTES;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_LEADING_ZEROS;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_SAMPLES;
import static io.sluice.core.chunk.XorStateDescriptor.FIELD;
import static io.sluice.core.chunk.XorStateDescriptor.FIRST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_DELTA_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_VALUE_BITS_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.NO_WINDOW;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Appends samples to an XOR chunk ({@link XorChunkDescriptor}), producing Prometheus' bytes bit for
 * bit. A reusable flyweight: all state lives in a {@link XorStateDescriptor} struct the caller owns,
 * so one appender per shard thread serves every series. Allocates nothing.
 *
 * <p>Writing bits: each code is one 64-bit big-endian store at the byte holding the next free bit
 * (plus one byte store when the code straddles those 8 bytes). The store carries the bits already
 * in that byte (kept in {@code partialByte}) and zeros after the code, so the block needs no zeroing
 * and the last byte's padding is always zero. The cost is {@link #WRITE_SLACK_BYTES} bytes the
 * appender may touch past the written end: a chunk's capacity must cover its bytes, a worst-case
 * sample and that slack before a sample is accepted.
 *
 * <p>Publication: the sample's bytes, the header count and the other state fields are written
 * first, then the cursor (count, bit length, window) with release semantics. Bits before the
 * published length never change (the store rewrites them with the same values); bytes after it are
 * in flux.
 *
 * <p>Caching: {@link #wrap} loads the writer-only fields (last timestamp, delta, value) and the
 * partial byte into fields; each append checks them with one read of the struct's cursor, so a
 * reset of the struct while wrapped makes it reload. Fields are written through, so the struct is
 * always complete. A struct is appended to through one appender at a time: wrap again after
 * another appender wrote it.
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
    /** Bytes past the written end a store may touch: 8 bytes from the end byte, plus one straddle byte, minus that end byte. */
    public static final int WRITE_SLACK_BYTES = 8;
    /** The smallest capacity that accepts a first sample. */
    public static final int MIN_CAPACITY_BYTES = HEADER_BYTES + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;

    /** Never a cursor: trailing zeros are at most 63, so the top byte of a cursor is below 64. */
    private static final long NO_CURSOR = -1L;

    // Owned by the appending thread; set by wrap().
    private MemorySegment state;
    private long stateOffset;
    private MemorySegment chunk;
    private long chunkOffset;
    private int capacityBytes;

    // Owned by the appending thread: a copy of the struct's fields, valid while its cursor equals cachedCursor.
    private long cachedCursor = NO_CURSOR;
    private long lastTimestampMs;
    private long lastDeltaMs;
    private long lastValueBits;
    /** The byte holding the next free bit, with the bits after it zero. */
    private int partialByte;
    // The XOR window during one append: read from the cursor, written back with it.
    private int windowLeading;
    private int windowTrailing;

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
        if (state == this.state && stateOffset == this.stateOffset && chunk == this.chunk && chunkOffset == this.chunkOffset
                && capacityBytes == this.capacityBytes && XorStateDescriptor.cursor(state, stateOffset) == cachedCursor) {
            // Wrapped to this very chunk and nothing changed since (appending a run of one series): the cache is valid.
            return this;
        }
        this.state = state;
        this.stateOffset = stateOffset;
        this.chunk = chunk;
        this.chunkOffset = chunkOffset;
        this.capacityBytes = capacityBytes;
        final long cursor = XorStateDescriptor.cursor(state, stateOffset);
        final int written = byteLength(XorStateDescriptor.bitLength(cursor));
        if (written > capacityBytes) {
            throw new IllegalArgumentException("chunk of " + written + " bytes wrapped with capacity " + capacityBytes);
        }
        if (XorStateDescriptor.numSamples(cursor) == 0) {
            chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) 0);
        }
        load(cursor);
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
        final long cursor = XorStateDescriptor.cursor(s, so);
        final int num = XorStateDescriptor.numSamples(cursor);
        final long start = XorStateDescriptor.bitLength(cursor);
        if (num == MAX_SAMPLES || !hasRoom(start)) {
            return false;
        }
        if (cursor != cachedCursor) {
            load(cursor);
        }
        windowLeading = XorStateDescriptor.leading(cursor);
        windowTrailing = XorStateDescriptor.trailing(cursor);
        final long delta = timestampMs - lastTimestampMs;
        final long end;
        if (num == 0) {
            end = put(putVarint(start, (timestampMs << 1) ^ (timestampMs >> 63)), valueBits, Long.SIZE);
            s.set(FIELD, so + FIRST_TIMESTAMP_OFFSET, timestampMs);
            setLastDelta(0L);
            setLastValue(valueBits);
        } else {
            final long xor = valueBits ^ lastValueBits;
            if (num == 1) {
                end = putValue(putVarint(start, delta), 0L, 0, xor);
            } else {
                end = putDeltaOfDelta(start, delta - lastDeltaMs, xor);
            }
            if (delta != lastDeltaMs) {
                setLastDelta(delta);
            }
            if (xor != 0) {
                setLastValue(valueBits);
            }
        }
        lastTimestampMs = timestampMs;
        s.set(FIELD, so + LAST_TIMESTAMP_OFFSET, timestampMs);
        chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) (num + 1));
        final long published = XorStateDescriptor.cursor((int) end, num + 1, windowLeading, windowTrailing);
        XorStateDescriptor.publishCursor(s, so, published);
        cachedCursor = published;
        return true;
    }

    /** Whether the capacity takes one more worst-case sample. */
    public boolean hasRoomForSample() {
        return hasRoom(bitLength());
    }

    /** The capacity a chunk of {@code byteLength} bytes needs to accept one more sample. */
    public static int requiredCapacityBytes(int byteLength) {
        return byteLength + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;
    }

    public int numSamples() {
        return XorStateDescriptor.numSamples(XorStateDescriptor.cursor(state, stateOffset));
    }

    /** Bits written, header included. */
    public int bitLength() {
        return XorStateDescriptor.bitLength(XorStateDescriptor.cursor(state, stateOffset));
    }

    /** The chunk's length as Prometheus' {@code Bytes()} reports it: header plus ceil(bits / 8). */
    public int byteLength() {
        return byteLength(bitLength());
    }

    public int capacityBytes() {
        return capacityBytes;
    }

    /** Timestamp of the first sample; meaningless while {@link #numSamples()} is 0. */
    public long firstTimestampMs() {
        return state.get(FIELD, stateOffset + FIRST_TIMESTAMP_OFFSET);
    }

    /** Timestamp of the last sample; meaningless while {@link #numSamples()} is 0. */
    public long lastTimestampMs() {
        return state.get(FIELD, stateOffset + LAST_TIMESTAMP_OFFSET);
    }

    /** Raw bits of the last value; meaningless while {@link #numSamples()} is 0. */
    public long lastValueBits() {
        return state.get(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET);
    }

    private static int byteLength(int bitLength) {
        return (bitLength + Byte.SIZE - 1) >>> 3;
    }

    private boolean hasRoom(long bitLength) {
        return ((bitLength + MAX_BITS_PER_SAMPLE + Byte.SIZE - 1) >>> 3) + WRITE_SLACK_BYTES <= capacityBytes;
    }

    /** Reloads the cache from the struct and the chunk (on wrap, or after another writer changed the struct). */
    private void load(long cursor) {
        lastTimestampMs = state.get(FIELD, stateOffset + LAST_TIMESTAMP_OFFSET);
        lastDeltaMs = state.get(FIELD, stateOffset + LAST_DELTA_OFFSET);
        lastValueBits = state.get(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET);
        final int bitLength = XorStateDescriptor.bitLength(cursor);
        final int used = bitLength & 7;
        partialByte = used == 0 ? 0 : chunk.get(ValueLayout.JAVA_BYTE, chunkOffset + (bitLength >>> 3)) & (0xFF00 >>> used) & 0xFF;
        cachedCursor = cursor;
    }

    private void setLastDelta(long deltaMs) {
        lastDeltaMs = deltaMs;
        state.set(FIELD, stateOffset + LAST_DELTA_OFFSET, deltaMs);
    }

    private void setLastValue(long valueBits) {
        lastValueBits = valueBits;
        state.set(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET, valueBits);
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
        final int leading = Math.min(Long.numberOfLeadingZeros(xor), MAX_LEADING_ZEROS);
        final int trailing = Long.numberOfTrailingZeros(xor);
        final int windowLeading = this.windowLeading;
        final int windowTrailing = this.windowTrailing;
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
            this.windowLeading = leading;
            this.windowTrailing = trailing;
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
        final int shift = Long.SIZE - used - bits;
        final long kept = (long) partialByte << 56;
        if (shift > 0) {
            final long word = kept | (value << shift);
            chunk.set(BIG_ENDIAN_LONG, at, word);
            // The new partial byte: the one holding bit pos + bits, taken from the word just written.
            partialByte = (int) (word << (((used + bits) >>> 3) << 3) >>> 56);
        } else {
            chunk.set(BIG_ENDIAN_LONG, at, kept | (value >>> -shift));
            final int straddle = (int) (value << (Byte.SIZE + shift)) & 0xFF;
            if (shift < 0) {
                chunk.set(ValueLayout.JAVA_BYTE, at + Long.BYTES, (byte) straddle);
            }
            partialByte = straddle;
        }
        return pos + bits;
    }
}
