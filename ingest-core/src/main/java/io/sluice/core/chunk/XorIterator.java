package io.sluice.core.chunk;

import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_LONG;
import static io.sluice.core.chunk.XorChunkDescriptor.HEADER_BYTES;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_SAMPLES;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

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
 * <p>Bits come from a 64-bit buffer refilled by one 8-byte load at the byte of the next unread bit:
 * a jittered sample costs about one load, a regular flat one (2 bits) one load per ~28 samples.
 *
 * <p>Reading an open chunk from another thread: pass the count read with acquire from the appender's
 * state ({@link XorStateDescriptor#publishedNumSamples}), never the chunk header, which may be ahead.
 *
 * <p>Thread: one reader at a time (a query thread, or the shard thread).
 */
public final class XorIterator {
    /** A refill loads 8 bytes from the byte of the next bit: at least 57 bits, 64 minus its offset in that byte. */
    private static final int MIN_REFILL_BITS = 57;
    /** The longest sample head decoded from one buffer: a 24-bit timestamp code and a 13-bit value header. */
    private static final int SAMPLE_HEAD_BITS = 37;
    private static final VarHandle ARRAY_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    // Owned by the reading thread. The chunk is in array (when not null) or else in segment.
    private byte[] array;
    private MemorySegment segment;
    private long streamOffset;
    private long limitOffset;
    private long limitBits;

    /** Unread bits, left-aligned: the next {@code bufferBits} bits of the stream from {@code bitPos}. */
    private long buffer;
    private int bufferBits;
    private long bitPos;
    /** numTotal, or 0 once an error stopped iteration: one compare per next(). */
    private int stopAt;
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
        array = null;
        return start(chunkOffset, lengthBytes, numSamples);
    }

    /**
     * Iterates at most {@code numSamples} samples of the chunk of {@code lengthBytes} bytes at
     * {@code chunkOffset} of a heap array; reads stay within those bytes. Reading an array skips the
     * memory-segment access checks: the path for readers' private copies (a series snapshot).
     */
    public XorIterator reset(byte[] chunk, int chunkOffset, int lengthBytes, int numSamples) {
        if (chunkOffset < 0 || lengthBytes < 0 || (long) chunkOffset + lengthBytes > chunk.length) {
            throw new IllegalArgumentException(lengthBytes + " bytes at offset " + chunkOffset
                    + " outside an array of " + chunk.length + " bytes");
        }
        if (numSamples < 0 || numSamples > MAX_SAMPLES) {
            throw new IllegalArgumentException("sample count " + numSamples + " outside 0.." + MAX_SAMPLES);
        }
        segment = null;
        array = chunk;
        return start(chunkOffset, lengthBytes, numSamples);
    }

    private XorIterator start(long chunkOffset, long lengthBytes, int numSamples) {
        streamOffset = chunkOffset + HEADER_BYTES;
        limitOffset = chunkOffset + lengthBytes;
        limitBits = (lengthBytes - HEADER_BYTES) * Byte.SIZE;
        buffer = 0;
        bufferBits = 0;
        bitPos = 0;
        stopAt = numSamples;
        numRead = 0;
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

    /** Iterates a whole chunk held in an array (its header gives the count). */
    public XorIterator reset(byte[] chunk) {
        if (chunk.length < HEADER_BYTES) {
            return reset(chunk, 0, chunk.length, 1);
        }
        return reset(chunk, 0, chunk.length, XorChunkDescriptor.headerNumSamples(chunk));
    }

    /** Advances to the next sample; false at the end or on an error (see {@link #error()}). */
    public boolean next() {
        if (numRead >= stopAt) {
            return false;
        }
        if (numRead >= 2) {
            if (bufferBits < 2) {
                refill();
            }
            if (buffer >>> 62 == 0) {
                // '0' '0': same delta, same value; the common case of regular scrapes of a flat series.
                skip(2);
                timestampMs += deltaMs;
                return accept();
            }
            return readSample() && accept();
        }
        if (numRead == 0) {
            final long zigZag = readVarint();
            timestampMs = (zigZag >>> 1) ^ -(zigZag & 1);
            valueBits = takeBits(Long.SIZE);
            return error == ChunkDecodeError.NONE && accept();
        }
        deltaMs = readVarint();
        timestampMs += deltaMs;
        if (error != ChunkDecodeError.NONE) {
            return false;
        }
        if (bufferBits < SAMPLE_HEAD_BITS) {
            refill();
        }
        return readValue(buffer, 0) && accept();
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

    /** Bits of the chunk consumed so far, header included. */
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

    /** Samples 2..: the timestamp code, then the value code, mostly from one buffer load. */
    private boolean readSample() {
        if (bufferBits < SAMPLE_HEAD_BITS) {
            refill();
        }
        final long bits = buffer;
        final long dod;
        final int used;
        if (bits >= 0) {
            dod = 0;
            used = 1;
        } else if ((bits << 1) >= 0) {
            dod = signed((bits << 2) >>> (Long.SIZE - 14), 14);
            used = 16;
        } else if ((bits << 2) >= 0) {
            dod = signed((bits << 3) >>> (Long.SIZE - 17), 17);
            used = 20;
        } else if ((bits << 3) >= 0) {
            dod = signed((bits << 4) >>> (Long.SIZE - 20), 20);
            used = 24;
        } else {
            skip(4);
            deltaMs += takeBits(Long.SIZE);
            timestampMs += deltaMs;
            if (bufferBits < SAMPLE_HEAD_BITS) {
                refill();
            }
            return readValue(buffer, 0);
        }
        deltaMs += dod;
        timestampMs += deltaMs;
        return readValue(bits, used);
    }

    /** Prometheus' reading of an n-bit dod: payloads above 2^(n-1) are negative. */
    private static long signed(long payload, int bits) {
        return payload > (1L << (bits - 1)) ? payload - (1L << bits) : payload;
    }

    /**
     * The value code starting {@code used} bits into {@code bits} (the buffer, holding at least
     * {@code used} + 13 bits).
     */
    private boolean readValue(long bits, int used) {
        final long code = bits << used;
        if (code >= 0) {
            skip(used + 1);
            return true;
        }
        int headBits;
        final int significantBits;
        if ((code << 1) >= 0) {
            headBits = used + 2;
            significantBits = Long.SIZE - leading - trailing;
        } else {
            final int newLeading = (int) ((code << 2) >>> (Long.SIZE - 5));
            final int encodedBits = (int) ((code << 7) >>> (Long.SIZE - 6));
            significantBits = encodedBits == 0 ? Long.SIZE : encodedBits;
            headBits = used + 13;
            if (newLeading + significantBits > Long.SIZE) {
                skip(headBits);
                // Padding zeros past the limit can spell such a window too: then the bytes are short.
                return fail(bitPos > limitBits ? ChunkDecodeError.TRUNCATED : ChunkDecodeError.BAD_VALUE_WINDOW);
            }
            leading = newLeading;
            trailing = Long.SIZE - newLeading - significantBits;
        }
        final long xor;
        if (headBits + significantBits <= bufferBits) {
            xor = (bits << headBits) >>> (Long.SIZE - significantBits);
            skip(headBits + significantBits);
        } else {
            skip(headBits);
            xor = takeBits(significantBits);
        }
        valueBits ^= xor << trailing;
        return true;
    }

    /** Go's binary.ReadUvarint over the bit stream. */
    private long readVarint() {
        long result = 0;
        for (int shift = 0; shift < Long.SIZE; shift += 7) {
            final long b = takeBits(Byte.SIZE);
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
    private long takeBits(int bits) {
        if (bits > MIN_REFILL_BITS) {
            final long high = takeBits(Integer.SIZE);
            return (high << (bits - Integer.SIZE)) | takeBits(bits - Integer.SIZE);
        }
        if (bufferBits < bits) {
            refill();
        }
        final long value = buffer >>> (Long.SIZE - bits);
        skip(bits);
        return value;
    }

    /** Drops {@code bits} (1..64) bits from the buffer. */
    private void skip(int bits) {
        buffer = (buffer << (bits - 1)) << 1;
        bufferBits -= bits;
        bitPos += bits;
    }

    /** Reloads the buffer from the byte of the next unread bit; bytes past the limit read as zero. */
    private void refill() {
        final long at = streamOffset + (bitPos >>> 3);
        final long word;
        if (at + Long.BYTES > limitOffset) {
            word = tailWord(at);
        } else if (array != null) {
            word = (long) ARRAY_LONG.get(array, (int) at);
        } else {
            word = segment.get(BIG_ENDIAN_LONG, at);
        }
        final int offsetInByte = (int) bitPos & 7;
        buffer = word << offsetInByte;
        bufferBits = Long.SIZE - offsetInByte;
    }

    private long tailWord(long at) {
        long word = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            final long b = at + i >= limitOffset ? 0
                    : (array != null ? array[(int) (at + i)] : segment.get(ValueLayout.JAVA_BYTE, at + i)) & 0xFFL;
            word = (word << Byte.SIZE) | b;
        }
        return word;
    }

    private boolean fail(ChunkDecodeError cause) {
        if (error == ChunkDecodeError.NONE) {
            error = cause;
            errorBitPosition = bitLength();
            stopAt = 0;
        }
        return false;
    }
}
