package io.sluice.core.chunk;

import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_LONG;
import static io.sluice.core.chunk.XorChunkDescriptor.HEADER_BYTES;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_SAMPLES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Decodes an XOR chunk ({@link XorChunkDescriptor}) sample by sample. Reusable and allocation-free:
 * {@link #reset} points it at another chunk.
 *
 * <p>Reads are bounded by a byte limit (the chunk's length when known, else the end of the segment),
 * never by trust in the bytes: a damaged chunk ends iteration with {@link #error()} set and the bit
 * position in {@link #errorBitPosition()}; nothing is thrown from the decoder and every call to
 * {@link #next()} consumes at least one bit, so it cannot loop. A chunk read through a stale handle
 * decodes garbage but stays inside its segment.
 *
 * <p>Reading an open chunk from another thread: pass the count read with acquire from the appender's
 * state ({@link XorStateDescriptor#publishedNumSamples}), never the chunk header, which may be ahead.
 *
 * <p>Thread: one reader at a time (a query thread, or the shard thread).
 */
public final class XorIterator {
    /** A window read from the stream has at least this many valid bits (64 minus the in-byte offset). */
    private static final int MIN_WINDOW_BITS = 57;

    // Owned by the reading thread.
    private MemorySegment segment;
    private long streamOffset;
    private long limitOffset;
    private long limitBits;
    private byte[] wrappedArray;
    private MemorySegment wrappedArraySegment;

    private long bitPos;
    private int numTotal;
    private int numRead;
    private long timestampMs;
    private long deltaMs;
    private long valueBits;
    private int leading;
    private int trailing;
    private ChunkDecodeError error = ChunkDecodeError.NONE;
    private long errorBitPosition = -1;

    /**
     * Iterates at most {@code numSamples} samples of the chunk at {@code chunkOffset}; reads stay
     * within the segment (a page, for chunks in {@link ChunkMemory}).
     */
    public XorIterator reset(MemorySegment chunk, long chunkOffset, int numSamples) {
        return reset(chunk, chunkOffset, chunk.byteSize() - chunkOffset, numSamples);
    }

    /**
     * Iterates at most {@code numSamples} samples of the chunk of {@code lengthBytes} bytes at
     * {@code chunkOffset}; reads stay within those bytes.
     */
    public XorIterator reset(MemorySegment chunk, long chunkOffset, long lengthBytes, int numSamples) {
        if (chunkOffset < 0 || lengthBytes < 0 || chunkOffset + lengthBytes > chunk.byteSize()) {
            throw new IllegalArgumentException(lengthBytes + " bytes at offset " + chunkOffset
                    + " outside a segment of " + chunk.byteSize() + " bytes");
        }
        if (numSamples < 0 || numSamples > MAX_SAMPLES) {
            throw new IllegalArgumentException("sample count " + numSamples + " outside 0.." + MAX_SAMPLES);
        }
        segment = chunk;
        streamOffset = chunkOffset + HEADER_BYTES;
        limitOffset = chunkOffset + lengthBytes;
        limitBits = (lengthBytes - HEADER_BYTES) * Byte.SIZE;
        numTotal = numSamples;
        numRead = 0;
        bitPos = 0;
        timestampMs = 0;
        deltaMs = 0;
        valueBits = 0;
        leading = 0;
        trailing = 0;
        error = ChunkDecodeError.NONE;
        errorBitPosition = -1;
        if (lengthBytes < HEADER_BYTES && numSamples > 0) {
            fail(ChunkDecodeError.TRUNCATED);
        }
        return this;
    }

    /**
     * Iterates a whole chunk held in an array (its header gives the count). Allocates one segment
     * wrapper only when the array differs from the previous call's.
     */
    public XorIterator reset(byte[] chunk) {
        if (chunk != wrappedArray) {
            wrappedArray = chunk;
            wrappedArraySegment = MemorySegment.ofArray(chunk);
        }
        if (chunk.length < HEADER_BYTES) {
            return reset(wrappedArraySegment, 0, chunk.length, 1);
        }
        return reset(wrappedArraySegment, 0, chunk.length, XorChunkDescriptor.headerNumSamples(chunk));
    }

    /** Advances to the next sample; false at the end or on an error (see {@link #error()}). */
    public boolean next() {
        if (numRead >= numTotal || error != ChunkDecodeError.NONE) {
            return false;
        }
        if (numRead >= 2) {
            final long window = window(bitPos);
            if (window >>> 62 == 0) {
                // '0' '0': same delta, same value; the common case of regular scrapes of a flat series.
                bitPos += 2;
                timestampMs += deltaMs;
                return accept();
            }
            readDeltaOfDelta(window);
            return readValue() && accept();
        }
        if (numRead == 0) {
            long zigZag = readVarint();
            timestampMs = (zigZag >>> 1) ^ -(zigZag & 1);
            valueBits = readBits(Long.SIZE);
            return error == ChunkDecodeError.NONE && accept();
        }
        deltaMs = readVarint();
        timestampMs += deltaMs;
        return error == ChunkDecodeError.NONE && readValue() && accept();
    }

    /**
     * Advances to the first sample with timestamp >= {@code targetMs} (staying on the current one if
     * it qualifies), as Prometheus' Seek; false if there is none or on an error.
     */
    public boolean seek(long targetMs) {
        if (error != ChunkDecodeError.NONE) {
            return false;
        }
        while (numRead == 0 || timestampMs < targetMs) {
            if (!next()) {
                return false;
            }
        }
        return true;
    }

    public long timestampMs() {
        return timestampMs;
    }

    public long valueBits() {
        return valueBits;
    }

    public double value() {
        return Double.longBitsToDouble(valueBits);
    }

    /** Samples decoded so far. */
    public int numRead() {
        return numRead;
    }

    /** Bits of the stream consumed so far, header included. */
    public long bitLength() {
        return bitPos + HEADER_BYTES * Byte.SIZE;
    }

    public ChunkDecodeError error() {
        return error;
    }

    public boolean hasError() {
        return error != ChunkDecodeError.NONE;
    }

    /** Bit position (from the chunk start, header included) where decoding failed; -1 without error. */
    public long errorBitPosition() {
        return errorBitPosition;
    }

    private boolean accept() {
        if (bitPos > limitBits) {
            // Bits past the limit read as zero, so the decode above ran on padding.
            return fail(ChunkDecodeError.TRUNCATED);
        }
        numRead++;
        return true;
    }

    private void readDeltaOfDelta(long window) {
        long dod;
        if (window >= 0) {
            bitPos += 1;
            dod = 0;
        } else if ((window << 1) >= 0) {
            dod = signed((window << 2) >>> (Long.SIZE - 14), 14);
            bitPos += 16;
        } else if ((window << 2) >= 0) {
            dod = signed((window << 3) >>> (Long.SIZE - 17), 17);
            bitPos += 20;
        } else if ((window << 3) >= 0) {
            dod = signed((window << 4) >>> (Long.SIZE - 20), 20);
            bitPos += 24;
        } else {
            bitPos += 4;
            dod = readBits(Long.SIZE);
        }
        deltaMs += dod;
        timestampMs += deltaMs;
    }

    /** Prometheus' reading of an n-bit dod: payloads above 2^(n-1) are negative. */
    private static long signed(long payload, int bits) {
        return payload > (1L << (bits - 1)) ? payload - (1L << bits) : payload;
    }

    private boolean readValue() {
        final long window = window(bitPos);
        if (window >= 0) {
            bitPos += 1;
            return true;
        }
        int significantBits;
        if ((window << 1) >= 0) {
            bitPos += 2;
            significantBits = Long.SIZE - leading - trailing;
        } else {
            final int newLeading = (int) ((window << 2) >>> (Long.SIZE - 5));
            significantBits = (int) ((window << 7) >>> (Long.SIZE - 6));
            if (significantBits == 0) {
                significantBits = Long.SIZE;
            }
            bitPos += 13;
            if (newLeading + significantBits > Long.SIZE) {
                // Padding zeros past the limit can spell such a window too: then the bytes are short.
                return fail(bitPos > limitBits ? ChunkDecodeError.TRUNCATED : ChunkDecodeError.BAD_VALUE_WINDOW);
            }
            leading = newLeading;
            trailing = Long.SIZE - newLeading - significantBits;
        }
        valueBits ^= readBits(significantBits) << trailing;
        return true;
    }

    /** Go's binary.ReadUvarint over the bit stream. */
    private long readVarint() {
        long result = 0;
        for (int shift = 0; shift < Long.SIZE; shift += 7) {
            final long b = window(bitPos) >>> (Long.SIZE - Byte.SIZE);
            bitPos += Byte.SIZE;
            if (b < 0x80) {
                if (shift == 63 && b > 1) {
                    break;
                }
                return result | (b << shift);
            }
            result |= (b & 0x7F) << shift;
        }
        fail(ChunkDecodeError.VARINT_OVERFLOW);
        return 0;
    }

    /** The next {@code bits} bits (1..64) as an unsigned number. */
    private long readBits(int bits) {
        long value;
        if (bits <= MIN_WINDOW_BITS) {
            value = window(bitPos) >>> (Long.SIZE - bits);
        } else {
            final long high = window(bitPos) >>> Integer.SIZE;
            final int lowBits = bits - Integer.SIZE;
            value = (high << lowBits) | (window(bitPos + Integer.SIZE) >>> (Long.SIZE - lowBits));
        }
        bitPos += bits;
        return value;
    }

    /** At least 57 bits from {@code pos}, left-aligned; bytes past the limit read as zero. */
    private long window(long pos) {
        final long at = streamOffset + (pos >>> 3);
        final long word = at + Long.BYTES <= limitOffset ? segment.get(BIG_ENDIAN_LONG, at) : tailWord(at);
        return word << (pos & 7);
    }

    private long tailWord(long at) {
        long word = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            final long b = at + i < limitOffset ? segment.get(ValueLayout.JAVA_BYTE, at + i) & 0xFFL : 0;
            word = (word << Byte.SIZE) | b;
        }
        return word;
    }

    private boolean fail(ChunkDecodeError cause) {
        if (error == ChunkDecodeError.NONE) {
            error = cause;
            errorBitPosition = bitLength();
        }
        return false;
    }
}
