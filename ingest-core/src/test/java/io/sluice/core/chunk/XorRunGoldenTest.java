package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link XorAppender#appendRun}: Prometheus' own chunks come out byte for byte when the samples arrive
 * in runs of random lengths, starting in the smallest block and growing by copy where a run stops
 * {@link XorAppender#RUN_FULL}; where the head's cut policy stops a run ({@link XorAppender#RUN_CUT}:
 * vectors of more than 240 samples or ~1 KiB) or at a timestamp not after the last ({@link
 * XorAppender#RUN_NOT_AFTER}: "dod-buckets" goes back in time), the sample goes through the per-sample
 * path, so the whole vector still lands in one chunk.
 */
class XorRunGoldenTest {
    private final ChunkFixture fixture = new ChunkFixture();
    private final ChunkMemory memory = fixture.memory;
    private final XorAppender appender = fixture.appender;

    static List<GoldenVectors> vectors() {
        return GoldenVectors.load();
    }

    @AfterEach
    void closeMemory() {
        fixture.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void runsOfAnyLengthEncodeExactlyAsPrometheus(GoldenVectors golden) {
        SplittableRandom random = new SplittableRandom(golden.name().hashCode());
        for (int round = 0; round < 8; round++) {
            long handle = memory.allocate(ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
            XorStateDescriptor.reset(fixture.state, 0);
            fixture.wrap(handle);
            long[] ts = golden.timestampsMs();
            int i = 0;
            while (i < ts.length) {
                int to = Math.min(ts.length, i + 1 + random.nextInt(round == 0 ? ts.length : 40));
                i = appender.appendRun(ts, golden.valueBits(), i, to, Long.MAX_VALUE);
                switch (appender.runStop()) {
                    case XorAppender.RUN_FULL -> {
                        long grown = memory.copy(handle, appender.byteLength(), ChunkCutPolicy.grownCapacityBytes(appender.capacityBytes()));
                        memory.page(handle).asSlice(ChunkMemory.offset(handle), ChunkHandle.capacityBytes(handle)).fill((byte) 0xA5);
                        memory.free(handle);
                        handle = grown;
                        fixture.wrap(handle);
                    }
                    case XorAppender.RUN_CUT, XorAppender.RUN_NOT_AFTER -> {
                        if (appender.runStop() == XorAppender.RUN_NOT_AFTER) {
                            assertThat(ts[i]).as("stopped as not after the last, at %d", i).isLessThanOrEqualTo(ts[i - 1]);
                        }
                        if (!appender.append(ts[i], golden.valueBits()[i])) { // beyond the head's policy: a test-only big block
                            long grown = memory.copy(handle, appender.byteLength(), ChunkMemory.MAX_BLOCK_BYTES);
                            memory.free(handle);
                            handle = grown;
                            fixture.wrap(handle);
                            assertThat(appender.append(ts[i], golden.valueBits()[i])).isTrue();
                        }
                        i++;
                    }
                    default -> assertThat(i).isEqualTo(to);
                }
            }
            byte[] bytes = memory.page(handle).asSlice(ChunkMemory.offset(handle), appender.byteLength()).toArray(ValueLayout.JAVA_BYTE);
            assertThat(HexFormat.of().formatHex(bytes)).as("round %d", round).isEqualTo(HexFormat.of().formatHex(golden.chunk()));
            assertThat(XorStateDescriptor.publishedNumSamples(fixture.state, 0)).isEqualTo(golden.size());
            assertThat(appender.lastTimestampMs()).isEqualTo(ts[ts.length - 1]);
            memory.free(handle);
        }
    }
}
