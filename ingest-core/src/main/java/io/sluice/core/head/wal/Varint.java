package io.sluice.core.head.wal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Writes protobuf-style base-128 varints into a {@link MemorySegment} at explicit offsets, so the
 * caller keeps its cursor in a local (no cursor object, no allocation). {@link RecordCursor} reads them.
 */
public final class Varint {
    /** Largest encoded size of a 64-bit varint. */
    public static final int MAX_LONG_BYTES = 10;
    /** Largest encoded size of a 32-bit varint. */
    public static final int MAX_INT_BYTES = 5;

    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private Varint() {
    }

    /** Writes {@code value} as an unsigned varint at {@code offset}; returns the offset after it. */
    public static long writeUnsigned(MemorySegment segment, long offset, long value) {
        while ((value & ~0x7FL) != 0) {
            segment.set(BYTE, offset++, (byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        segment.set(BYTE, offset++, (byte) value);
        return offset;
    }

    /** Writes {@code value} zig-zag encoded, so small magnitudes of either sign stay short. */
    public static long writeSigned(MemorySegment segment, long offset, long value) {
        return writeUnsigned(segment, offset, zigZag(value));
    }

    public static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    public static long unZigZag(long encoded) {
        return (encoded >>> 1) ^ -(encoded & 1);
    }

    /** Encoded size of {@code value} as an unsigned varint. */
    public static int sizeUnsigned(long value) {
        int bits = 64 - Long.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }
}
