package io.sluice.server.format;

import io.sluice.server.format.PayloadException.Reason;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A reusable cursor over a region of a byte array, for the decoders: varints, little-endian fixed
 * fields, lengths, nested limits. Every read checks the bytes are there and throws a
 * {@link PayloadException} whose position counts from the start of the region, so malformed input
 * never escapes as an {@code ArrayIndexOutOfBoundsException}.
 *
 * <p>Positions passed in and returned are absolute indexes into {@link #buffer()}. Not thread-safe:
 * owned by the decoder that holds it, on its consumer thread.
 */
public final class WireReader {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    /** A 64-bit varint has at most 10 bytes; the 10th may carry only the top bit. */
    private static final int MAX_VARINT_BYTES = 10;

    private byte[] buf = new byte[0];
    private int pos;
    private int limit;
    private int origin;
    private String region = "";

    /** Points the reader at {@code buf[off, off + len)}; {@code region} names it in error messages. */
    public void wrap(byte[] buf, int off, int len, String region) {
        this.buf = buf;
        this.pos = off;
        this.limit = off + len;
        this.origin = off;
        this.region = region;
    }

    /**
     * Points the reader at a whole Kafka record value ("record" in error messages), rejecting it with
     * {@link Reason#TOO_LARGE} if it is longer than the limits allow.
     */
    public void wrapRecord(byte[] value, int off, int len, DecoderLimits limits) throws PayloadException {
        wrap(value, off, len, "record");
        limits.checkRecordSize(len);
    }

    public byte[] buffer() {
        return buf;
    }

    public int position() {
        return pos;
    }

    public void position(int absolutePos) {
        pos = absolutePos;
    }

    public int limit() {
        return limit;
    }

    public boolean hasRemaining() {
        return pos < limit;
    }

    public int remaining() {
        return limit - pos;
    }

    /** Narrows the readable end to {@code len} bytes from here (a nested message); returns the old limit. */
    public int pushLimit(int len) {
        int old = limit;
        limit = pos + len;
        return old;
    }

    public void popLimit(int oldLimit) {
        limit = oldLimit;
    }

    /** Fails with {@link Reason#TRUNCATED} unless {@code n} more bytes are readable. */
    public void require(long n, String what) throws PayloadException {
        if (n > limit - pos) {
            throw error(Reason.TRUNCATED, pos, what + " needs " + n + " bytes, " + (limit - pos) + " left");
        }
    }

    public void skip(int n, String what) throws PayloadException {
        require(n, what);
        pos += n;
    }

    public int readU8(String what) throws PayloadException {
        require(1, what);
        return buf[pos++] & 0xFF;
    }

    public int readIntLE(String what) throws PayloadException {
        require(4, what);
        int v = (int) INT_LE.get(buf, pos);
        pos += 4;
        return v;
    }

    public long readLongLE(String what) throws PayloadException {
        require(8, what);
        long v = (long) LONG_LE.get(buf, pos);
        pos += 8;
        return v;
    }

    /**
     * An unsigned LEB128 varint of up to 64 bits (protobuf's varint). With 10 bytes left in the array,
     * the bytes are read without a check each and the end is checked against the limit once: a
     * millisecond timestamp takes 6 bytes, at the end of its Sample, and profiling showed the
     * checked loop as the remote-write decoder's top frame.
     */
    public long readVarint(String what) throws PayloadException {
        int p = pos;
        byte[] b = buf;
        if (b.length - p < MAX_VARINT_BYTES) {
            return readVarintNearArrayEnd(what);
        }
        long result = 0;
        for (int shift = 0; shift < 7 * (MAX_VARINT_BYTES - 1); shift += 7) {
            byte next = b[p++];
            result |= (long) (next & 0x7F) << shift;
            if (next >= 0) {
                return endVarint(p, result, what);
            }
        }
        byte last = b[p++];
        if ((last & 0xFE) != 0) {
            throw error(Reason.BAD_VARINT, pos, what + ": varint overflows 64 bits or is longer than "
                    + MAX_VARINT_BYTES + " bytes");
        }
        return endVarint(p, result | (long) last << 63, what);
    }

    private long endVarint(int end, long value, String what) throws PayloadException {
        if (end > limit) {
            throw error(Reason.TRUNCATED, pos, what + ": varint runs " + (end - limit) + " bytes past the end");
        }
        pos = end;
        return value;
    }

    /** Fewer than 10 bytes are left in the array, so the varint ends within them or is cut off. */
    private long readVarintNearArrayEnd(String what) throws PayloadException {
        long result = 0;
        int shift = 0;
        for (int p = pos; p < limit; shift += 7) {
            byte next = buf[p++];
            result |= (long) (next & 0x7F) << shift;
            if (next >= 0) {
                pos = p;
                return result;
            }
        }
        throw error(Reason.TRUNCATED, pos, what + ": varint cut off after " + (limit - pos) + " bytes");
    }

    /** A varint length of a nested field that must fit in what is left; returns it as an int. */
    public int readLength(String what) throws PayloadException {
        int start = pos;
        long len = readVarint(what);
        if (len < 0 || len > limit - pos) {
            throw error(Reason.TRUNCATED, start, what + ": length " + Long.toUnsignedString(len)
                    + " overruns the enclosing message, " + (limit - pos) + " bytes left");
        }
        return (int) len;
    }

    /** Reads a little-endian 32-bit word at an absolute position that the caller has bounds-checked. */
    public static int intLE(byte[] buf, int absolutePos) {
        return (int) INT_LE.get(buf, absolutePos);
    }

    /** Reads a little-endian 64-bit word at an absolute position that the caller has bounds-checked. */
    public static long longLE(byte[] buf, int absolutePos) {
        return (long) LONG_LE.get(buf, absolutePos);
    }

    /**
     * An unsigned 64-bit integer (protobuf's uint64 and fixed64, line protocol's {@code u}) rounded to the
     * nearest double, as Go's {@code float64(uint64)} does.
     */
    public static double unsignedToDouble(long v) {
        // Halving keeps the low bit sticky ("round to odd"), so the one rounding of the conversion is right.
        return v >= 0 ? v : (double) (v >>> 1 | (v & 1)) * 2.0;
    }

    /** A rejection at an absolute position, reported relative to the start of the region. */
    public PayloadException error(Reason reason, int absolutePos, String detail) {
        return new PayloadException(reason, absolutePos - origin, region, detail);
    }
}
