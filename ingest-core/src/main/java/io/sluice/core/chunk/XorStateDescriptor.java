package io.sluice.core.chunk;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The state of an open XOR chunk's appender: 40 bytes the head embeds in its per-series struct, so a
 * series needs no Java object for its open chunk. {@link XorAppender} is only a flyweight over it.
 *
 * <pre>
 *  0               8               16              24              32      36      38  39  40
 *  +---------------+---------------+---------------+---------------+-------+-------+---+---+
 *  | lastTsMs      | lastValueBits | lastDeltaMs   | firstTsMs     |bitLen |numSmp |ld |tr |
 *  | int64         | int64         | int64         | int64         | int32 |uint16 |u8 |u8 |
 *  +---------------+---------------+---------------+---------------+-------+-------+---+---+
 * </pre>
 *
 * <ul>
 *   <li>{@code lastDeltaMs}: t[n-1] - t[n-2] (0 after the first sample), as Prometheus' {@code tDelta}.</li>
 *   <li>{@code bitLen}: bits written from the chunk's first byte, header included (16 when empty).
 *       Offsets are relative to the chunk, so the chunk bytes may be copied elsewhere and re-wrapped.</li>
 *   <li>{@code numSmp}: the published sample count, written with release semantics after the sample's
 *       bytes; readers on other threads read it with acquire ({@link #publishedNumSamples}).</li>
 *   <li>{@code ld}/{@code tr}: leading/trailing zeros of the current XOR window; {@code ld} is
 *       {@link #NO_WINDOW} until the first non-zero XOR, as Prometheus' {@code leading = 0xff}.</li>
 * </ul>
 *
 * Native byte order (the struct is never written to disk). The struct must be 8-byte aligned: the
 * fields use aligned access, which release/acquire on {@code numSmp} requires anyway.
 */
public final class XorStateDescriptor {
    public static final int LAST_TIMESTAMP_OFFSET = 0;
    public static final int LAST_VALUE_BITS_OFFSET = LAST_TIMESTAMP_OFFSET + Long.BYTES;
    public static final int LAST_DELTA_OFFSET = LAST_VALUE_BITS_OFFSET + Long.BYTES;
    public static final int FIRST_TIMESTAMP_OFFSET = LAST_DELTA_OFFSET + Long.BYTES;
    public static final int BIT_LENGTH_OFFSET = FIRST_TIMESTAMP_OFFSET + Long.BYTES;
    public static final int NUM_SAMPLES_OFFSET = BIT_LENGTH_OFFSET + Integer.BYTES;
    public static final int LEADING_OFFSET = NUM_SAMPLES_OFFSET + Short.BYTES;
    public static final int TRAILING_OFFSET = LEADING_OFFSET + 1;
    /** Size of the struct in bytes. */
    public static final int SIZE = TRAILING_OFFSET + 1;
    /** Required alignment of the struct in bytes. */
    public static final int ALIGNMENT = Long.BYTES;

    /** {@code ld} before the first window was chosen. */
    static final int NO_WINDOW = 0xFF;
    static final int EMPTY_BIT_LENGTH = XorChunkDescriptor.HEADER_BYTES * Byte.SIZE;

    private static final VarHandle NUM_SAMPLES = ValueLayout.JAVA_SHORT.varHandle().withInvokeExactBehavior();

    private XorStateDescriptor() {
    }

    /** Makes {@code state} describe an empty chunk. Publishes a count of 0 (release). */
    public static void reset(MemorySegment state, long stateOffset) {
        state.set(ValueLayout.JAVA_LONG, stateOffset + LAST_TIMESTAMP_OFFSET, 0L);
        state.set(ValueLayout.JAVA_LONG, stateOffset + LAST_VALUE_BITS_OFFSET, 0L);
        state.set(ValueLayout.JAVA_LONG, stateOffset + LAST_DELTA_OFFSET, 0L);
        state.set(ValueLayout.JAVA_LONG, stateOffset + FIRST_TIMESTAMP_OFFSET, 0L);
        state.set(ValueLayout.JAVA_INT, stateOffset + BIT_LENGTH_OFFSET, EMPTY_BIT_LENGTH);
        state.set(ValueLayout.JAVA_BYTE, stateOffset + LEADING_OFFSET, (byte) NO_WINDOW);
        state.set(ValueLayout.JAVA_BYTE, stateOffset + TRAILING_OFFSET, (byte) 0);
        publishNumSamples(state, stateOffset, 0);
    }

    /**
     * The sample count as last published by the appender, read with acquire: every byte of those
     * samples is visible to the caller afterwards. Safe from any thread.
     */
    public static int publishedNumSamples(MemorySegment state, long stateOffset) {
        return Short.toUnsignedInt((short) NUM_SAMPLES.getAcquire(state, stateOffset + NUM_SAMPLES_OFFSET));
    }

    static void publishNumSamples(MemorySegment state, long stateOffset, int numSamples) {
        NUM_SAMPLES.setRelease(state, stateOffset + NUM_SAMPLES_OFFSET, (short) numSamples);
    }

    /** The writer's own view of the count (plain read; only on the appending thread). */
    static int numSamples(MemorySegment state, long stateOffset) {
        return Short.toUnsignedInt(state.get(ValueLayout.JAVA_SHORT, stateOffset + NUM_SAMPLES_OFFSET));
    }
}
