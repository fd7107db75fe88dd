package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * {@link XorAppender#appendRun} when a sub-run takes no sample (its end of the block reached at
 * once): it writes nothing outside the block, also when the block ends right after the written bytes (a restored
 * block filled exactly), and leaves the chunk and state as they were.
 */
class XorAppendRunFullBlockTest {
    private static final byte GUARD = (byte) 0xA5;

    @Test
    void aSubRunThatTakesNothingWritesNothingOutsideTheBlock() {
        for (int samples = 0; samples < 40; samples++) {
            for (int spare = 0; spare < 12; spare++) {
                checkNoSampleTaken(samples, spare);
            }
        }
    }

    /** Writes {@code samples} samples, re-wraps the chunk in a block of its bytes + {@code spare}, appends one more. */
    private static void checkNoSampleTaken(int samples, int spare) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, 8);
            MemorySegment chunk = arena.allocate(1024, 8);
            XorStateDescriptor.reset(state, 0);
            XorAppender appender = new XorAppender().wrap(state, 0, chunk, 0, 1024);
            for (int i = 0; i < samples; i++) {
                assertThat(appender.append(1_000L * (i + 1) + (i * 37L) % 11, Double.doubleToRawLongBits(i * 1.37))).isTrue();
            }
            int length = appender.byteLength();
            int capacity = length + spare;
            chunk.asSlice(capacity).fill(GUARD);
            byte[] before = chunk.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
            byte[] stateBefore = state.toArray(ValueLayout.JAVA_BYTE);
            appender.wrap(state, 0, chunk, 0, capacity);
            long next = 1_000L * (samples + 5);
            int taken = appender.appendRun(new long[] {next}, new long[] {7L}, 0, 1, Long.MAX_VALUE);
            String as = samples + " samples, " + spare + " spare bytes";
            assertThat(taken).as(as).isZero();
            assertThat(appender.runStop()).as(as).isEqualTo(XorAppender.RUN_FULL);
            assertThat(chunk.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE)).as(as).isEqualTo(before);
            assertThat(state.toArray(ValueLayout.JAVA_BYTE)).as(as).isEqualTo(stateBefore);
            for (long at = capacity; at < chunk.byteSize(); at++) {
                assertThat(chunk.get(ValueLayout.JAVA_BYTE, at)).as(as + ": byte " + at + " past the block").isEqualTo(GUARD);
            }
        }
    }
}
