package io.sluice.core.chunk;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Encodes time-ordered samples held in arrays into whole XOR chunks on the heap, exactly as
 * {@link XorAppender} writes them (header count set, the bits after the last sample zero). Used
 * where a chunk is made from samples in one go: a series' out-of-order samples when their buffer is
 * full, and a reader's merged copy of a series with out-of-order data. One per thread; reusable.
 */
public final class HeapXorEncoder {
    private final XorAppender appender = new XorAppender();
    private final long[] stateWords = new long[XorStateDescriptor.SIZE / Long.BYTES];
    private final MemorySegment state = MemorySegment.ofArray(stateWords);
    private byte[] buffer = new byte[256];
    private MemorySegment bufferSegment = MemorySegment.ofArray(buffer);
    private int length;

    /**
     * Encodes {@code timestampsMs[from..to)} / {@code valueBits[from..to)} (time-ordered, at most
     * {@link XorChunkDescriptor#MAX_SAMPLES}) into this encoder's buffer; the chunk is then
     * {@link #bytes()}{@code [0, }{@link #length()}{@code )}, until the next call.
     */
    public HeapXorEncoder encode(long[] timestampsMs, long[] valueBits, int from, int to) {
        int n = to - from;
        if (n < 0 || n > XorChunkDescriptor.MAX_SAMPLES) {
            throw new IllegalArgumentException("sample count " + n);
        }
        int capacity = XorChunkDescriptor.HEADER_BYTES + (n + 1) * XorAppender.MAX_BYTES_PER_SAMPLE + XorAppender.WRITE_SLACK_BYTES;
        if (capacity > buffer.length) {
            buffer = new byte[Math.max(capacity, buffer.length * 2)];
            bufferSegment = MemorySegment.ofArray(buffer);
        }
        Arrays.fill(buffer, 0, capacity, (byte) 0);
        XorStateDescriptor.reset(state, 0);
        appender.wrap(state, 0, bufferSegment, 0, capacity);
        for (int i = from; i < to; i++) {
            if (!appender.append(timestampsMs[i], valueBits[i])) {
                throw new IllegalStateException("a chunk sized for " + n + " samples took only " + (i - from));
            }
        }
        length = appender.byteLength();
        buffer[XorChunkDescriptor.NUM_SAMPLES_OFFSET] = (byte) (n >>> 8);
        buffer[XorChunkDescriptor.NUM_SAMPLES_OFFSET + 1] = (byte) n;
        int bits = appender.bitLength() % Byte.SIZE;
        if (bits != 0) {
            buffer[length - 1] &= (byte) (0xFF << (Byte.SIZE - bits));
        }
        return this;
    }

    public byte[] bytes() {
        return buffer;
    }

    public int length() {
        return length;
    }

    /** A copy of the last chunk encoded, exactly its length. */
    public byte[] copy() {
        return Arrays.copyOf(buffer, length);
    }
}
