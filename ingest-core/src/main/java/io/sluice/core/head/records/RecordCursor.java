package io.sluice.core.head.records;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A reusable reader over one record's payload. Bytes come from a WAL being replayed, so they are
 * untrusted: reading past the end or a varint longer than 10 bytes does not throw, it sets
 * {@link #isMalformed()} and returns 0; callers check the flag once per entry and stop.
 *
 * <p>{@link #wrap} copies the payload into a heap buffer the cursor owns (grown by doubling, so
 * nothing is allocated once it fits the largest record) and every read is an array access. Why:
 * reading a shared-arena mapping byte by byte costs a liveness and a bounds check per byte (12 % of
 * replay CPU in a 100 M-sample profile); one bulk copy per record pays them once, and the copy
 * costs less than 1 % (the record was just checksummed, so its bytes are in the cache). Offsets
 * ({@link #position()}) and {@link #segment()} refer to that buffer, not to the wrapped segment.
 *
 * <p>One cursor per decoding thread; not thread-safe.
 */
public final class RecordCursor {
    /**
     * Bytes kept after the payload so {@link #readBigEndian} can load 8 bytes at any valid position,
     * and {@link SamplesRecord.Decoder}'s loop can read a whole entry (at most 23 bytes: two 7-byte
     * varints, a control byte, an 8-byte load) before it checks the entry ended inside the payload.
     */
    static final int SLACK_BYTES = 32;
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    // Owned by the decoding thread.
    /**
     * First buffer size. Why not smaller: each growth is a branch first taken when a record larger than
     * all before it comes, possibly late in a replay (an uncommon trap and a recompile of the caller);
     * 64 KiB holds a SAMPLES record of ~12,000 typical entries.
     */
    private static final int FIRST_BUFFER_BYTES = 64 << 10;

    private byte[] buffer = new byte[FIRST_BUFFER_BYTES + SLACK_BYTES];
    private MemorySegment bufferSegment = MemorySegment.ofArray(buffer);
    private int position;
    private int limit;
    private boolean malformed;

    /** Copies {@code length} bytes of {@code segment} from {@code offset} and reads them from position 0. */
    public RecordCursor wrap(MemorySegment segment, long offset, long length) {
        if (length < 0 || length > Integer.MAX_VALUE - SLACK_BYTES) {
            throw new IllegalArgumentException("payload length " + length);
        }
        int n = (int) length;
        if (n + SLACK_BYTES > buffer.length) {
            buffer = new byte[Math.max(n + SLACK_BYTES, buffer.length * 2)];
            bufferSegment = MemorySegment.ofArray(buffer);
        }
        MemorySegment.copy(segment, BYTE, offset, buffer, 0, n);
        // Bytes past the payload may hold an earlier record's; readBigEndian masks them off.
        this.position = 0;
        this.limit = n;
        this.malformed = false;
        return this;
    }

    public boolean isMalformed() {
        return malformed;
    }

    public boolean hasRemaining() {
        return !malformed && position < limit;
    }

    /** Offset of the next byte in {@link #segment()}. */
    public long position() {
        return position;
    }

    public long remaining() {
        return limit - position;
    }

    /** The copied payload (a heap segment over the cursor's buffer; valid until the next {@link #wrap}). */
    public MemorySegment segment() {
        return bufferSegment;
    }

    /** The buffer holding the payload at [0, {@link #limit()}) and {@link #SLACK_BYTES} readable bytes after it. */
    byte[] array() {
        return buffer;
    }

    /** The payload's length: the end of what {@link #array()} holds of it. */
    int limit() {
        return limit;
    }

    /** Moves to {@code position} (0..limit), where a caller that read {@link #array()} itself stopped. */
    void position(int position) {
        this.position = position;
    }

    /** The 8 bytes at {@code p} of {@code buffer} as a big-endian long (one load). */
    static long bigEndianLong(byte[] buffer, int p) {
        return (long) BIG_ENDIAN_LONG.get(buffer, p);
    }

    /** Marks the record malformed from outside (e.g. a value out of its allowed range). */
    public void markMalformed() {
        malformed = true;
    }

    public long readUnsigned() {
        int p = position;
        if (p < limit) {
            byte b = buffer[p];
            if (b >= 0) { // one byte: most ids, timestamp deltas and control bytes
                position = p + 1;
                return b;
            }
        }
        return readUnsignedSlow();
    }

    private long readUnsignedSlow() {
        long result = 0;
        int p = position;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                malformed = true;
                position = p;
                return 0;
            }
            byte b = buffer[p++];
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                position = p;
                return result;
            }
        }
        malformed = true;
        position = p;
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
        int p = position;
        if (p >= limit) {
            malformed = true;
            return 0;
        }
        position = p + 1;
        return buffer[p] & 0xFF;
    }

    /** Reads {@code n} (1..8) bytes as the low bytes of a big-endian long. */
    public long readBigEndian(int n) {
        int p = position;
        if (n < 1 || n > 8 || p + n > limit) {
            malformed = true;
            return 0;
        }
        position = p + n;
        // One 8-byte load (the slack after the payload keeps it inside the buffer), keeping the first n bytes.
        return bigEndianLong(buffer, p) >>> ((8 - n) << 3);
    }

    /** Skips {@code n} bytes (after the caller has read what it needs from {@link #segment()}). */
    public void skip(long n) {
        if (n < 0 || position + n > limit) {
            malformed = true;
            position = limit;
            return;
        }
        position += (int) n;
    }
}
