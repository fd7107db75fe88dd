package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The appender is one flyweight per shard over many series' structs: interleaving series, resetting a
 * struct while wrapped, and moving a chunk mid-byte must all give the same bytes as a lone appender.
 */
class XorAppenderReuseTest {
    private static final int SERIES = 12;
    private static final int CAPACITY = 2048;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment states = arena.allocate((long) SERIES * XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
    private final MemorySegment chunks = arena.allocate((long) SERIES * CAPACITY);
    private final List<GoldenVectors> golden = GoldenVectors.load();

    @AfterEach
    void closeArena() {
        arena.close();
    }

    @Test
    void oneAppenderInterleavingEverySeriesWritesEachChunkAsPrometheus() {
        SplittableRandom random = new SplittableRandom(31);
        chunks.fill((byte) 0x5A);
        int[] next = new int[SERIES];
        for (int s = 0; s < SERIES; s++) {
            XorStateDescriptor.reset(states, stateOffset(s));
        }
        XorAppender appender = new XorAppender();
        int remaining = golden.stream().limit(SERIES).mapToInt(GoldenVectors::size).sum();
        while (remaining > 0) {
            int s = random.nextInt(SERIES);
            GoldenVectors vector = golden.get(s);
            if (next[s] == vector.size()) {
                continue;
            }
            appender.wrap(states, stateOffset(s), chunks, (long) s * CAPACITY, CAPACITY);
            int burst = 1 + random.nextInt(5);
            for (int i = 0; i < burst && next[s] < vector.size(); i++, next[s]++, remaining--) {
                assertThat(appender.append(vector.timestampsMs()[next[s]], vector.valueBits()[next[s]])).isTrue();
            }
        }
        for (int s = 0; s < SERIES; s++) {
            appender.wrap(states, stateOffset(s), chunks, (long) s * CAPACITY, CAPACITY);
            assertThat(hex(chunks, (long) s * CAPACITY, appender.byteLength())).as(golden.get(s).name())
                    .isEqualTo(HexFormat.of().formatHex(golden.get(s).chunk()));
        }
    }

    @Test
    void aStructResetWhileWrappedIsReloaded() {
        // Its first stream byte is 0 (varint of t = 0): any stale bit carried over would show.
        GoldenVectors vector = golden.stream().filter(g -> g.name().equals("epoch-start")).findFirst().orElseThrow();
        XorStateDescriptor.reset(states, 0);
        XorAppender appender = new XorAppender().wrap(states, 0, chunks, 0, CAPACITY);
        for (int i = 0; i < 30 || chunks.get(ValueLayout.JAVA_BYTE, appender.bitLength() / 8) == 0; i++) {
            appender.append(1_000L * i + (i * i) % 7, Double.doubleToRawLongBits(i * 0.37));
        }
        // The head cuts: resets the struct and reuses the block, without wrapping again.
        XorStateDescriptor.reset(states, 0);
        for (int i = 0; i < vector.size(); i++) {
            assertThat(appender.append(vector.timestampsMs()[i], vector.valueBits()[i])).isTrue();
        }
        assertThat(hex(chunks, 0, appender.byteLength())).isEqualTo(HexFormat.of().formatHex(vector.chunk()));
    }

    @Test
    void aChunkMovedMidByteContinuesFromItsCopy() {
        GoldenVectors vector = golden.get(5);
        XorStateDescriptor.reset(states, 0);
        XorAppender appender = new XorAppender().wrap(states, 0, chunks, 0, CAPACITY);
        long offset = 0;
        for (int i = 0; i < vector.size(); i++) {
            if (i % 17 == 16) {
                // Move to the next block, odd offsets included, and scribble over the old one.
                long target = offset + CAPACITY + (i % 3);
                MemorySegment.copy(chunks, offset, chunks, target, appender.byteLength());
                chunks.asSlice(offset, CAPACITY).fill((byte) 0xEE);
                offset = target;
                appender.wrap(states, 0, chunks, offset, CAPACITY);
            }
            assertThat(appender.append(vector.timestampsMs()[i], vector.valueBits()[i])).isTrue();
        }
        assertThat(hex(chunks, offset, appender.byteLength())).isEqualTo(HexFormat.of().formatHex(vector.chunk()));
    }

    private static long stateOffset(int series) {
        return (long) series * XorStateDescriptor.SIZE;
    }

    private static String hex(MemorySegment segment, long offset, int length) {
        return HexFormat.of().formatHex(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }
}
