package io.sluice.server.format;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A reusable, growable output buffer for the encoders: varints, little-endian fixed fields, byte
 * ranges. Grows by doubling (so a steady workload stops allocating after its largest payload) and
 * never shrinks. Not thread-safe: owned by one encoder.
 */
public final class ByteWriter {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int length;

    public ByteWriter(int initialCapacityBytes) {
        buf = new byte[Math.max(16, initialCapacityBytes)];
    }

    /** The bytes written are {@code buffer()[0, length())}; the array changes when the writer grows. */
    public byte[] buffer() {
        return buf;
    }

    public int length() {
        return length;
    }

    public void reset() {
        length = 0;
    }

    /** Forgets everything written after the first {@code newLength} bytes. */
    public void truncate(int newLength) {
        if (newLength < 0 || newLength > length) {
            throw new IndexOutOfBoundsException("truncate to " + newLength + " outside [0, " + length + "]");
        }
        length = newLength;
    }

    /** Makes room for {@code n} more bytes. */
    public void ensureRemaining(int n) {
        long needed = (long) length + n;
        if (needed > buf.length) {
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("payload would exceed 2 GiB: " + needed + " bytes");
            }
            buf = Arrays.copyOf(buf, (int) Math.max(needed, Math.min(Integer.MAX_VALUE - 8, 2L * buf.length)));
        }
    }

    public void writeByte(int b) {
        ensureRemaining(1);
        buf[length++] = (byte) b;
    }

    public void writeIntLE(int v) {
        ensureRemaining(4);
        INT_LE.set(buf, length, v);
        length += 4;
    }

    public void writeLongLE(long v) {
        ensureRemaining(8);
        LONG_LE.set(buf, length, v);
        length += 8;
    }

    /** Overwrites 4 bytes written earlier (a count or length known only later). */
    public void putIntLE(int absolutePos, int v) {
        if (absolutePos < 0 || absolutePos + 4 > length) {
            throw new IndexOutOfBoundsException("putIntLE at " + absolutePos + " outside [0, " + length + ")");
        }
        INT_LE.set(buf, absolutePos, v);
    }

    /** An unsigned LEB128 varint (protobuf's varint): 1 byte below 128, 10 bytes for negative values. */
    public void writeVarint(long v) {
        ensureRemaining(10);
        while ((v & ~0x7FL) != 0) {
            buf[length++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[length++] = (byte) v;
    }

    public void writeBytes(byte[] src, int off, int len) {
        ensureRemaining(len);
        System.arraycopy(src, off, buf, length, len);
        length += len;
    }

    /** The number of bytes {@link #writeVarint} uses for {@code v}. */
    public static int varintSize(long v) {
        return v == 0 ? 1 : (64 - Long.numberOfLeadingZeros(v) + 6) / 7;
    }
}
