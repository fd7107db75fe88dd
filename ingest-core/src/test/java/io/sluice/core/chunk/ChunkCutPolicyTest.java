package io.sluice.core.chunk;

import static io.sluice.core.chunk.ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.chunk.HeadChunkRecipe.ClosedChunk;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The cut policy driven through the head's recipe: real appender, real chunk memory, real growth. */
class ChunkCutPolicyTest {
    private static final long RANGE_START_MS = Math.floorDiv(1_700_000_000_000L, DEFAULT_CHUNK_RANGE_MS) * DEFAULT_CHUNK_RANGE_MS;

    private final MemoryAccounting accounting = new MemoryAccounting();
    private final ChunkMemory memory = new ChunkMemory(accounting);
    private final XorIterator iterator = new XorIterator();

    @AfterEach
    void closeMemory() {
        memory.close();
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isZero();
    }

    @Test
    void theBranchFreeCutTestAgreesWithMustCutBefore() {
        long[] edges = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE,
                RANGE_START_MS, RANGE_START_MS + DEFAULT_CHUNK_RANGE_MS};
        int[] counts = {0, 1, 2, ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK - 1, ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK, 65_535};
        int[] lengths = {0, ChunkCutPolicy.MAX_BYTES_BEFORE_APPEND, ChunkCutPolicy.MAX_BYTES_BEFORE_APPEND + 1, 4_096};
        SplittableRandom random = new SplittableRandom(42);
        for (int round = 0; round < 200_000; round++) {
            long t = round % 3 == 0 ? edges[random.nextInt(edges.length)] : random.nextLong();
            long end = round % 5 == 0 ? edges[random.nextInt(edges.length)] : t + random.nextLong(-3, 4);
            int num = round % 2 == 0 ? counts[random.nextInt(counts.length)] : random.nextInt(300);
            int length = round % 2 == 0 ? lengths[random.nextInt(lengths.length)] : random.nextInt(1_500);
            assertThat(ChunkCutPolicy.cutBit(t, num, length, end) == 1)
                    .as("t=%d num=%d length=%d end=%d", t, num, length, end)
                    .isEqualTo(ChunkCutPolicy.mustCutBefore(t, num, length, end));
            assertThat(ChunkCutPolicy.lessThanBit(t, end) == 1).as("%d < %d", t, end).isEqualTo(t < end);
        }
    }

    @Test
    void a15SecondScrapeMakesChunksOf120Samples() {
        // At 30 samples the chunk spans 435 s: 7200 s / (4 * 435.001 s) = 4.1 -> 4 chunks per range.
        List<ClosedChunk> chunks = run(regular(RANGE_START_MS, 15_000, 6 * 240, 0L));
        assertThat(chunks).hasSize(12).allSatisfy(c -> assertThat(c.numSamples()).isEqualTo(ChunkCutPolicy.SAMPLES_PER_CHUNK));
    }

    @Test
    void a1SecondScrapeSplitsTheRangeEvenly() {
        // First chunk: 7200 s / (4 * 29.001 s) = 62.07 -> 62 chunks of 116.129 s, so 117 samples; each
        // later chunk re-predicts over what is left of the range, so sizes stay at 117-119.
        List<ClosedChunk> chunks = run(regular(RANGE_START_MS, 1_000, 7_200, 0L));
        assertThat(chunks.get(0).numSamples()).isEqualTo(117);
        assertThat(chunks).hasSize(61).allSatisfy(c -> assertThat(c.numSamples()).isBetween(117, 119));
        assertThat(chunks.get(60).lastMs()).isEqualTo(RANGE_START_MS + DEFAULT_CHUNK_RANGE_MS - 1_000);
    }

    @Test
    void aRateIncreaseAfterThePredictionCutsAt240Samples() {
        long[][] samples = new long[2][300];
        for (int i = 0; i < 300; i++) {
            samples[0][i] = RANGE_START_MS + (i < 30 ? i * 60_000L : 29 * 60_000L + (i - 29) * 1_000L);
        }
        List<ClosedChunk> chunks = run(samples);
        assertThat(chunks.get(0).numSamples()).isEqualTo(ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK);
    }

    @Test
    void incompressibleValuesAreCutBelow1024Bytes() {
        SplittableRandom random = new SplittableRandom(5);
        long[][] samples = regular(RANGE_START_MS, 15_000, 480, 0L);
        for (int i = 0; i < samples[1].length; i++) {
            samples[1][i] = random.nextLong();
        }
        List<ClosedChunk> chunks = run(samples);
        assertThat(chunks).hasSizeGreaterThan(4).allSatisfy(c -> assertThat(c.byteLength()).isLessThanOrEqualTo(ChunkCutPolicy.MAX_BYTES_PER_CHUNK));
        assertThat(chunks.get(0).byteLength()).isGreaterThan(ChunkCutPolicy.MAX_BYTES_BEFORE_APPEND);
        assertThat(chunks.get(0).numSamples()).isLessThan(ChunkCutPolicy.SAMPLES_PER_CHUNK);
    }

    @Test
    void noChunkSpansARangeBoundaryAndEverySampleSurvives() {
        SplittableRandom random = new SplittableRandom(77);
        long[] intervalsMs = {1_000, 5_000, 10_000, 15_000, 30_000, 60_000, 300_000};
        for (int c = 0; c < 40; c++) {
            long interval = intervalsMs[random.nextInt(intervalsMs.length)];
            long start = RANGE_START_MS + random.nextLong(-DEFAULT_CHUNK_RANGE_MS, DEFAULT_CHUNK_RANGE_MS);
            if (c % 5 == 0) {
                start = -start; // before 1970 too
            }
            long[][] samples = regular(start, interval, 1 + random.nextInt(3_000), random.nextLong());
            for (int i = 1; i < samples[0].length; i++) {
                samples[0][i] += random.nextLong(-interval / 10, interval / 10 + 1);
            }
            List<ClosedChunk> chunks = run(samples);
            for (ClosedChunk chunk : chunks) {
                assertThat(Math.floorDiv(chunk.firstMs(), DEFAULT_CHUNK_RANGE_MS))
                        .as("case %d: chunk %d..%d", c, chunk.firstMs(), chunk.lastMs())
                        .isEqualTo(Math.floorDiv(chunk.lastMs(), DEFAULT_CHUNK_RANGE_MS));
                assertThat(chunk.numSamples()).isBetween(1, ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK);
                assertThat(chunk.byteLength()).isLessThanOrEqualTo(ChunkCutPolicy.MAX_BYTES_PER_CHUNK);
            }
            assertDecodesInOrder(chunks, samples);
            chunks.forEach(chunk -> memory.free(chunk.handle()));
            assertThat(memory.usedBytes()).as("case %d: blocks left after freeing every chunk", c).isZero();
        }
    }

    @Test
    void rangesAreFloorAlignedBefore1970() {
        assertThat(ChunkCutPolicy.chunkRangeEndMs(0, DEFAULT_CHUNK_RANGE_MS)).isEqualTo(DEFAULT_CHUNK_RANGE_MS);
        assertThat(ChunkCutPolicy.chunkRangeEndMs(DEFAULT_CHUNK_RANGE_MS - 1, DEFAULT_CHUNK_RANGE_MS)).isEqualTo(DEFAULT_CHUNK_RANGE_MS);
        assertThat(ChunkCutPolicy.chunkRangeEndMs(-1, DEFAULT_CHUNK_RANGE_MS)).isZero();
        assertThat(ChunkCutPolicy.chunkRangeEndMs(-DEFAULT_CHUNK_RANGE_MS, DEFAULT_CHUNK_RANGE_MS)).isZero();
    }

    @Test
    void thePredictionFollowsPrometheusArithmetic() {
        assertThat(ChunkCutPolicy.predictedChunkEndMs(0, 435_000, 7_200_000)).isEqualTo(1_800_000);
        assertThat(ChunkCutPolicy.predictedChunkEndMs(0, 29_000, 7_200_000)).isEqualTo(116_129);
        assertThat(ChunkCutPolicy.predictedChunkEndMs(0, 1_740_000, 7_200_000)).as("n <= 1").isEqualTo(7_200_000);
        assertThat(ChunkCutPolicy.chunkEndAfterAppendMs(7_200_000, 29, 0, 29_000)).as("only at 30 samples").isEqualTo(7_200_000);
        assertThat(ChunkCutPolicy.chunkEndAfterAppendMs(7_200_000, 30, 0, 29_000)).isEqualTo(116_129);
    }

    @Test
    void openBlocksGrowThroughFourCapacitiesAndTheLargestTakesEveryAllowedSample() {
        assertThat(ChunkCutPolicy.MAX_OPEN_CAPACITY_BYTES).isEqualTo(1040)
                .isGreaterThanOrEqualTo(XorAppender.requiredCapacityBytes(ChunkCutPolicy.MAX_BYTES_BEFORE_APPEND));
        int capacity = ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES;
        StringBuilder steps = new StringBuilder().append(capacity);
        while (capacity < ChunkCutPolicy.MAX_OPEN_CAPACITY_BYTES) {
            capacity = ChunkCutPolicy.grownCapacityBytes(capacity);
            steps.append(' ').append(capacity);
        }
        assertThat(steps.toString()).isEqualTo("64 128 256 512 1040");
        assertThatThrownBy(() -> ChunkCutPolicy.grownCapacityBytes(1040)).isInstanceOf(IllegalStateException.class);
        assertThat(ChunkCutPolicy.closedCapacityBytes(161)).isEqualTo(176);
        assertThat(ChunkCutPolicy.closedCapacityBytes(160)).isEqualTo(160);
    }

    @Test
    void aRunSizesItsBlockOnTheLadderSkippingSteps() {
        assertThat(ChunkCutPolicy.runCapacityBytes(0, 2, 0)).as("nothing expected: the first step").isEqualTo(64);
        assertThat(ChunkCutPolicy.runCapacityBytes(0, 2, 200)).as("200 bytes + a worst-case sample + slack").isEqualTo(256);
        assertThat(ChunkCutPolicy.runCapacityBytes(64, 40, 0)).as("a full block grows at least a step").isEqualTo(128);
        assertThat(ChunkCutPolicy.runCapacityBytes(64, 40, 400)).as("one copy from 64 to 512").isEqualTo(512);
        assertThat(ChunkCutPolicy.runCapacityBytes(64, 40, 5_000)).as("never above the largest").isEqualTo(1040);
        assertThat(ChunkCutPolicy.runCapacityBytes(512, 480, 5)).isEqualTo(1040);
        for (int more = 0; more < 1_200; more += 7) {
            int capacity = ChunkCutPolicy.runCapacityBytes(0, 2, more);
            assertThat(capacity).isIn(64, 128, 256, 512, 1040);
            assertThat(capacity >= XorAppender.requiredCapacityBytes(2 + more) || capacity == 1040).isTrue();
        }
        long first = 1_700_000_000_000L; // a 6-byte varint: the first sample takes 112 bits
        assertThat(ChunkCutPolicy.grownRunCapacityBytes(64, 16 + 112 + 9 * 20, 10, first, 100))
                .as("100 more samples at 20 bits: 250 bytes, from 64 straight to 512").isEqualTo(512);
        assertThat(ChunkCutPolicy.grownRunCapacityBytes(64, 16 + 112 + 9 * 20, 10, first, 3)).as("a short rest: one step").isEqualTo(128);
        assertThat(ChunkCutPolicy.grownRunCapacityBytes(64, 16 + 112, 1, first, 100)).as("one sample: nothing to go by").isEqualTo(128);
        assertThat(ChunkCutPolicy.nextChunkCapacityBytes(302, 120, 128)).as("as big as the chunk just cut").isEqualTo(512);
        assertThat(ChunkCutPolicy.nextChunkCapacityBytes(302, 120, 10)).isEqualTo(64);
    }

    private List<ClosedChunk> run(long[][] samples) {
        try (HeadChunkRecipe recipe = new HeadChunkRecipe(memory, DEFAULT_CHUNK_RANGE_MS)) {
            for (int i = 0; i < samples[0].length; i++) {
                recipe.append(samples[0][i], samples[1][i]);
            }
            List<ClosedChunk> chunks = List.copyOf(recipe.finish());
            assertDecodesInOrder(chunks, samples);
            return chunks;
        }
    }

    private void assertDecodesInOrder(List<ClosedChunk> chunks, long[][] samples) {
        int next = 0;
        for (ClosedChunk chunk : chunks) {
            iterator.reset(memory.page(chunk.handle()), ChunkMemory.offset(chunk.handle()), chunk.byteLength(), chunk.numSamples());
            while (iterator.next()) {
                if (iterator.timestampMs() != samples[0][next] || iterator.valueBits() != samples[1][next]) {
                    throw new AssertionError("sample " + next + " read back as (" + iterator.timestampMs() + ", "
                            + Long.toHexString(iterator.valueBits()) + "), appended (" + samples[0][next] + ", "
                            + Long.toHexString(samples[1][next]) + ")");
                }
                next++;
            }
            assertThat(iterator.hasError()).isFalse();
        }
        assertThat(next).isEqualTo(samples[0].length);
    }

    /** {timestamps, value bits}: a gauge-like walk from {@code seed} every {@code intervalMs}. */
    private static long[][] regular(long startMs, long intervalMs, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[][] samples = new long[2][count];
        double value = 100;
        for (int i = 0; i < count; i++) {
            samples[0][i] = startMs + i * intervalMs;
            value += Math.round(random.nextGaussian() * 100) / 100.0;
            samples[1][i] = Double.doubleToRawLongBits(value);
        }
        return samples;
    }
}
