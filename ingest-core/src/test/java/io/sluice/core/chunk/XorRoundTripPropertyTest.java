package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seeded sweep over timestamp shapes (regular, jittered, big jumps both ways, negative, any) and value
 * shapes (constant, counter, gauge, random bits, special values): every sample round-trips exactly,
 * into blocks full of garbage, and a short capacity is refused without writing anything.
 * Re-run one case with -Dsluice.test.seed=N.
 */
class XorRoundTripPropertyTest {
    private static final long BASE_SEED = Long.getLong("sluice.test.seed", 20261122L);
    private static final int CASES = 400;
    private static final int CANARY_BYTES = 64;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
    private final MemorySegment block = arena.allocate(16 * 1024 + CANARY_BYTES);
    private final XorAppender appender = new XorAppender();
    private final XorIterator iterator = new XorIterator();

    @AfterEach
    void closeArena() {
        arena.close();
    }

    @Test
    void everySampleRoundTripsExactly() {
        for (int c = 0; c < CASES; c++) {
            long seed = BASE_SEED + c;
            SplittableRandom random = new SplittableRandom(seed);
            int count = 1 + random.nextInt(600);
            SampleShapes samples = SampleShapes.random(random.nextLong(), count);
            int capacity = XorAppender.requiredCapacityBytes(XorChunkDescriptor.HEADER_BYTES + count * XorAppender.MAX_BYTES_PER_SAMPLE);
            fillWithGarbage(random, capacity);

            XorStateDescriptor.reset(state, 0);
            appender.wrap(state, 0, block, 0, capacity);
            for (int i = 0; i < count; i++) {
                assertThat(appender.append(samples.timestampsMs[i], samples.valueBits[i]))
                        .as("seed %d: sample %d of %d refused at %d bytes", seed, i, count, appender.byteLength()).isTrue();
            }
            assertThat(XorChunkDescriptor.headerNumSamples(block, 0)).as("seed %d header", seed).isEqualTo(count);
            assertCanaryIntact(seed, capacity);
            assertDecodes(seed, samples, count, appender.byteLength());
        }
    }

    @Test
    void aShortCapacityIsRefusedWithNothingWritten() {
        for (int c = 0; c < CASES / 2; c++) {
            long seed = BASE_SEED + CASES + c;
            SplittableRandom random = new SplittableRandom(seed);
            // 2 bits per sample at best: 2000 samples overflow the largest capacity tried.
            SampleShapes samples = SampleShapes.random(random.nextLong(), 2000);
            int capacity = XorAppender.MIN_CAPACITY_BYTES - 1 + random.nextInt(300);
            fillWithGarbage(random, capacity);

            XorStateDescriptor.reset(state, 0);
            appender.wrap(state, 0, block, 0, capacity);
            int accepted = 0;
            while (accepted < samples.timestampsMs.length) {
                byte[] stateBefore = state.toArray(ValueLayout.JAVA_BYTE);
                byte[] blockBefore = block.asSlice(0, capacity + CANARY_BYTES).toArray(ValueLayout.JAVA_BYTE);
                if (!appender.append(samples.timestampsMs[accepted], samples.valueBits[accepted])) {
                    assertThat(state.toArray(ValueLayout.JAVA_BYTE)).as("seed %d: state after refusal", seed).isEqualTo(stateBefore);
                    assertThat(block.asSlice(0, capacity + CANARY_BYTES).toArray(ValueLayout.JAVA_BYTE)).as("seed %d: bytes after refusal", seed).isEqualTo(blockBefore);
                    assertThat(XorAppender.requiredCapacityBytes(appender.byteLength()))
                            .as("seed %d: refused with room for a worst-case sample", seed).isGreaterThan(capacity);
                    break;
                }
                accepted++;
            }
            assertThat(accepted).as("seed %d: a capacity of %d bytes never filled", seed, capacity).isLessThan(2000);
            assertThat(appender.hasRoomForSample()).isFalse();
            assertCanaryIntact(seed, capacity);
            assertDecodes(seed, samples, accepted, appender.byteLength());
        }
    }

    private void assertDecodes(long seed, SampleShapes samples, int count, int byteLength) {
        iterator.reset(block, 0, byteLength, count);
        for (int i = 0; i < count; i++) {
            assertThat(iterator.next()).as("seed %d: sample %d: %s", seed, i, iterator.error()).isTrue();
            assertThat(iterator.timestampMs()).as("seed %d: timestamp %d", seed, i).isEqualTo(samples.timestampsMs[i]);
            assertThat(iterator.valueBits()).as("seed %d: value %d", seed, i).isEqualTo(samples.valueBits[i]);
        }
        assertThat(iterator.next()).as("seed %d: past the end", seed).isFalse();
        assertThat(iterator.hasError()).as("seed %d: %s", seed, iterator.error()).isFalse();
        assertThat((iterator.bitLength() + 7) / 8).as("seed %d: decoded length", seed).isEqualTo(byteLength);
    }

    /** Random bytes in the block (it is never zeroed), and a canary after the capacity. */
    private void fillWithGarbage(SplittableRandom random, int capacity) {
        for (long i = 0; i < block.byteSize(); i++) {
            block.set(ValueLayout.JAVA_BYTE, i, i < capacity ? (byte) random.nextInt() : (byte) 0xC3);
        }
    }

    private void assertCanaryIntact(long seed, int capacity) {
        for (int i = capacity; i < capacity + CANARY_BYTES; i++) {
            assertThat(block.get(ValueLayout.JAVA_BYTE, i)).as("seed %d: byte %d after capacity %d", seed, i, capacity).isEqualTo((byte) 0xC3);
        }
    }
}
