package io.sluice.core.head.records;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

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
    private static final VarHandle LITTLE_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

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

    /**
     * Reads the unsigned varint at {@code p} of {@code buffer} if it is 1 to 7 bytes long: returns
     * {@code (value << 8) | length} ({@link #peekedValue}, {@link #peekedLength}), or -1 for a longer
     * one (or one that runs on). Reads up to 7 bytes from {@code p} without checking a limit: the
     * caller keeps that many readable bytes after its data and checks where the varint ended.
     * Why 7: every SAMPLES entry the encoder writes fits (ids are ints, timestamp deltas below
     * 2^48 ms, decimal mantissas at most 7 bytes), and the packed result stays one positive long.
     */
    static long peek(byte[] buffer, int p) {
        int b0 = buffer[p];
        if (b0 >= 0) { // one byte: predicted ids, shared timestamps, control-sized values
            return ((long) b0 << 8) | 1;
        }
        int b1 = buffer[p + 1];
        if (b1 >= 0) {
            return ((long) ((b0 & 0x7F) | (b1 << 7)) << 8) | 2;
        }
        return peekLong(buffer, p);
    }

    private static long peekLong(byte[] buffer, int p) {
        long value = 0;
        for (int i = 0; i < 7; i++) {
            byte b = buffer[p + i];
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                return (value << 8) | (i + 1);
            }
        }
        return -1;
    }

    /**
     * {@link #peek} without a branch on the length: the same result, for a varint whose length
     * varies from entry to entry (a decimal value's mantissa: 2 or 3 bytes at random), where
     * {@link #peek}'s length branches are mispredicted. Reads 8 bytes from {@code p}: one
     * little-endian load, the stop byte found by its clear top bit, the 7-bit groups folded together
     * in three steps.
     */
    static long peekBranchless(byte[] buffer, int p) {
        long x = littleEndianLong(buffer, p);
        long stops = ~x & 0x0080_8080_8080_8080L; // a clear top bit in bytes 0..6 ends the varint
        if (stops == 0) {
            return -1;
        }
        long lowest = stops & -stops;
        return (foldGroups(x & (lowest ^ (lowest - 1))) << 8) | ((Long.numberOfTrailingZeros(lowest) + 1) >>> 3);
    }

    /**
     * The value of a varint of at most 7 bytes given as a little-endian long of its bytes (bytes after
     * its stop byte zeroed; the continuation bits may be set): the 7-bit groups folded together in
     * three steps, without a branch on the length.
     */
    static long foldGroups(long bytes) {
        long x = bytes;
        x = ((x & 0x7F00_7F00_7F00_7F00L) >>> 1) | (x & 0x007F_007F_007F_007FL);
        x = ((x & 0x3FFF_0000_3FFF_0000L) >>> 2) | (x & 0x0000_3FFF_0000_3FFFL);
        return ((x & 0x0FFF_FFFF_0000_0000L) >>> 4) | (x & 0x0000_0000_0FFF_FFFFL);
    }

    /** The 8 bytes at {@code p} of {@code buffer} as a little-endian long (one load). */
    static long littleEndianLong(byte[] buffer, int p) {
        return (long) LITTLE_ENDIAN_LONG.get(buffer, p);
    }

    static long peekedValue(long peeked) {
        return peeked >>> 8;
    }

    static int peekedLength(long peeked) {
        return (int) peeked & 0xFF;
    }

    /** Encoded size of {@code value} as an unsigned varint. */
    public static int sizeUnsigned(long value) {
        int bits = 64 - Long.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }
}
