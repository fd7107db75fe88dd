package io.sluice.core.head.wal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A reusable reader over one record's payload. Bytes come from a WAL being replayed, so they are
 * untrusted: reading past the end or a varint longer than 10 bytes does not throw, it sets
 * {@link #isMalformed()} and returns 0; callers check the flag once per entry and stop.
 *
 * <p>One cursor per decoding thread; {@link #wrap} rebinds it without allocating.
 */
public final class RecordCursor {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private MemorySegment segment = MemorySegment.NULL;
    private long position;
    private long limit;
    private boolean malformed;

    public RecordCursor wrap(MemorySegment segment, long offset, long length) {
        this.segment = segment;
        this.position = offset;
        this.limit = offset + length;
        this.malformed = false;
        return this;
    }

    public boolean isMalformed() {
        return malformed;
    }

    public boolean hasRemaining() {
        return !malformed && position < limit;
    }

    public long position() {
        return position;
    }

    public long remaining() {
        return limit - position;
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Marks the record malformed from outside (e.g. a value out of its allowed range). */
    public void markMalformed() {
        malformed = true;
    }

    public long readUnsigned() {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= limit) {
                malformed = true;
                return 0;
            }
            byte b = segment.get(BYTE, position++);
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return result;
            }
        }
        malformed = true;
        return 0;
    }

    public long readSigned() {
        return Varint.unZigZag(readUnsigned());
    }

    /** An unsigned varint that must fit a non-negative int no larger than {@code max}. */
    public int readBoundedInt(int max) {
        long v = readUnsigned();
        if (v < 0 || v > max) {
            malformed = true;
            return 0;
        }
        return (int) v;
    }

    public int readUnsignedByte() {
        if (position >= limit) {
            malformed = true;
            return 0;
        }
        return segment.get(BYTE, position++) & 0xFF;
    }

    /** Reads {@code n} (1..8) bytes as the low bytes of a big-endian long. */
    public long readBigEndian(int n) {
        if (n < 1 || n > 8 || position + n > limit) {
            malformed = true;
            return 0;
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = (v << 8) | (segment.get(BYTE, position + i) & 0xFFL);
        }
        position += n;
        return v;
    }

    /** Skips {@code n} bytes (after the caller has read what it needs from {@link #segment()}). */
    public void skip(long n) {
        if (n < 0 || position + n > limit) {
            malformed = true;
            position = limit;
            return;
        }
        position += n;
    }
}
