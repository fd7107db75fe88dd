package io.sluice.core.chunk;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The state of an open XOR chunk's appender: 40 bytes the head embeds in its per-series struct, so a
 * series needs no Java object for its open chunk. {@link XorAppender} is only a flyweight over it.
 *
 * <pre>
 *  0               8               16              24              32              40
 *  +---------------+---------------+---------------+---------------+---------------+
 *  | lastTsMs      | lastValueBits | lastDeltaMs   | firstTsMs     | cursor        |
 *  | int64         | int64         | int64         | int64         | int64         |
 *  +---------------+---------------+---------------+---------------+---------------+
 *
 *  cursor:  63        56 55        48 47                   32 31                            0
 *           +-----------+-----------+-----------------------+-------------------------------+
 *           | trailing  | leading   | numSamples (uint16)   | bitLength (bits from chunk    |
 *           | zeros     | zeros     |                       | start, header included)       |
 *           +-----------+-----------+-----------------------+-------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>{@code lastDeltaMs}: t[n-1] - t[n-2] (0 after the first sample), as Prometheus' {@code tDelta}.</li>
 *   <li>{@code bitLength} is relative to the chunk (16 when empty), so the chunk bytes may be copied
 *       to a bigger block and re-wrapped.</li>
 *   <li>{@code leading}/{@code trailing}: the current XOR window; leading is {@link #NO_WINDOW} until
 *       the first non-zero XOR, as Prometheus' {@code leading = 0xff}.</li>
 *   <li>The cursor is one word so one release store publishes a sample: the appender writes the
 *       sample's bytes and the other fields, then the cursor ({@link #publishedNumSamples} reads it
 *       with acquire on any thread).</li>
 * </ul>
 *
 * Native byte order (the struct is never written to disk). The struct must be 8-byte aligned: the
 * cursor's release/acquire access requires it.
 */
public final class XorStateDescriptor {
    public static final int LAST_TIMESTAMP_OFFSET = 0;
    public static final int LAST_VALUE_BITS_OFFSET = LAST_TIMESTAMP_OFFSET + Long.BYTES;
    public static final int LAST_DELTA_OFFSET = LAST_VALUE_BITS_OFFSET + Long.BYTES;
    public static final int FIRST_TIMESTAMP_OFFSET = LAST_DELTA_OFFSET + Long.BYTES;
    public static final int CURSOR_OFFSET = FIRST_TIMESTAMP_OFFSET + Long.BYTES;
    /** Size of the struct in bytes. */
    public static final int SIZE = CURSOR_OFFSET + Long.BYTES;
    /** Required alignment of the struct in bytes. */
    public static final int ALIGNMENT = Long.BYTES;

    /** leading before the first window was chosen. */
    static final int NO_WINDOW = 0xFF;
    static final int EMPTY_BIT_LENGTH = XorChunkDescriptor.HEADER_BYTES * Byte.SIZE;

    /** Plain fields: no alignment check per access (the struct is aligned anyway). */
    static final ValueLayout.OfLong FIELD = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final VarHandle CURSOR = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    private static final VarHandle LAST_VALUE = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private XorStateDescriptor() {
    }

    /** Makes {@code state} describe an empty chunk, published with release. */
    public static void reset(MemorySegment state, long stateOffset) {
        state.set(FIELD, stateOffset + LAST_TIMESTAMP_OFFSET, 0L);
        state.set(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET, 0L);
        state.set(FIELD, stateOffset + LAST_DELTA_OFFSET, 0L);
        state.set(FIELD, stateOffset + FIRST_TIMESTAMP_OFFSET, 0L);
        publishCursor(state, stateOffset, cursor(EMPTY_BIT_LENGTH, 0, NO_WINDOW, 0));
    }

    /**
     * The sample count as last published by the appender, read with acquire: every byte of those
     * samples is visible to the caller afterwards. Safe from any thread.
     */
    public static int publishedNumSamples(MemorySegment state, long stateOffset) {
        return numSamples((long) CURSOR.getAcquire(state, stateOffset + CURSOR_OFFSET));
    }

    /**
     * The cursor as last published by the appender, read with acquire: its {@link #numSamples} and
     * {@link #bitLength} describe the same sample, and every byte of those samples is visible to the
     * caller afterwards. Safe from any thread.
     */
    public static long publishedCursor(MemorySegment state, long stateOffset) {
        return (long) CURSOR.getAcquire(state, stateOffset + CURSOR_OFFSET);
    }

    /**
     * The appender's last value, read with acquire. The appender writes it with release after the
     * sample's last timestamp, so a {@code lastTsMs} read after this one is at least that sample's: a
     * reader that read the series' last timestamp {@code t} published (its max time, with acquire),
     * then this value, then {@code lastTsMs} again and found {@code t}, holds the value of the sample at
     * {@code t} (a later sample's value would come with a later timestamp). Safe from any thread.
     */
    public static long lastValueBits(MemorySegment state, long stateOffset) {
        return (long) LAST_VALUE.getAcquire(state, stateOffset + LAST_VALUE_BITS_OFFSET);
    }

    /** Writes the last value with release: after the sample's last timestamp (see {@link #lastValueBits}). */
    static void setLastValueBits(MemorySegment state, long stateOffset, long valueBits) {
        LAST_VALUE.setRelease(state, stateOffset + LAST_VALUE_BITS_OFFSET, valueBits);
    }

    static void publishCursor(MemorySegment state, long stateOffset, long cursor) {
        CURSOR.setRelease(state, stateOffset + CURSOR_OFFSET, cursor);
    }

    /** The writer's own view of the cursor (plain read; only on the appending thread). */
    static long cursor(MemorySegment state, long stateOffset) {
        return state.get(FIELD, stateOffset + CURSOR_OFFSET);
    }

    static long cursor(int bitLength, int numSamples, int leading, int trailing) {
        return (bitLength & 0xFFFF_FFFFL) | ((long) numSamples << 32) | ((long) leading << 48) | ((long) trailing << 56);
    }

    /** The chunk's length in bits (header included) packed in an appender cursor. */
    public static int bitLength(long cursor) {
        return (int) cursor;
    }

    /** The sample count packed in an appender cursor. */
    public static int numSamples(long cursor) {
        return (int) (cursor >>> 32) & 0xFFFF;
    }

    static int leading(long cursor) {
        return (int) (cursor >>> 48) & 0xFF;
    }

    static int trailing(long cursor) {
        return (int) (cursor >>> 56);
    }
}
