package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.XorAppender;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.head.series.SeriesSnapshot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SeriesSnapshot#exactChunk}: every chunk of a series, closed or open, comes out as the bytes a
 * fresh Prometheus-exact appender writes for the same samples, with the right time range — closed
 * chunks in memory (decoded for their length and times) and flushed to their chunk file (served with
 * the length and times written, no decode).
 */
class ExactChunkTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void closedAndOpenChunksAreBitExactAndCoverEverySampleOnce(boolean flushed) throws Exception {
        Random random = new Random(11);
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withCheckpointIntervalMs(0));
            byte[] labels = f.canonical("__name__", "x", "job", "exact");
            int stream = f.streams.idOf("t", 0);
            List<long[]> appended = new ArrayList<>();
            long t = 1_000;
            for (int batchNo = 0; batchNo < 5; batchNo++) {
                ShardBatch batch = shard.acquireBatch();
                batch.record(stream, batchNo);
                batch.series(f.hash(labels), labels, 0, labels.length);
                for (int i = 0; i < 97; i++) {
                    t += 1 + random.nextInt(30_000);
                    long bits = switch (random.nextInt(6)) {
                        case 0 -> 0x7ff0000000000002L; // stale marker
                        case 1 -> Double.doubleToRawLongBits(-0.0);
                        case 2 -> 1L; // subnormal
                        default -> Double.doubleToRawLongBits(random.nextGaussian());
                    };
                    batch.sample(t, bits);
                    appended.add(new long[] {t, bits});
                }
                shard.submit(batch);
                f.drain();
            }
            if (flushed) {
                long inMemory = shard.chunkBytesInUse();
                assertThat(shard.checkpoint()).isTrue();
                assertThat(shard.chunkBytesInUse()).as("closed chunks left memory for their file").isLessThan(inMemory);
            }
            SeriesSnapshot snapshot = new SeriesSnapshot();
            shard.snapshot(0, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            assertThat(snapshot.chunkCount()).isGreaterThan(1);
            SeriesSnapshot.ExactChunk chunk = new SeriesSnapshot.ExactChunk();
            int next = 0;
            for (int c = 0; c < snapshot.chunkCount(); c++) {
                snapshot.exactChunk(c, chunk);
                List<long[]> part = appended.subList(next, next + chunk.numSamples());
                assertThat(chunk.minTimeMs()).isEqualTo(part.getFirst()[0]);
                assertThat(chunk.maxTimeMs()).isEqualTo(part.getLast()[0]);
                byte[] exact = chunk.toByteArray();
                assertThat(exact).as("chunk %d", c).isEqualTo(encode(part));
                XorIterator it = new XorIterator().reset(exact);
                for (long[] sample : part) {
                    assertThat(it.next()).isTrue();
                    assertThat(it.timestampMs()).isEqualTo(sample[0]);
                    assertThat(it.valueBits()).isEqualTo(sample[1]);
                }
                assertThat(it.next()).isFalse();
                next += chunk.numSamples();
            }
            assertThat(next).isEqualTo(appended.size());
        }
    }

    /** The reference: a fresh appender on zeroed memory, bytes up to its byteLength(). */
    private static byte[] encode(List<long[]> samples) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
            int capacity = XorAppender.MIN_CAPACITY_BYTES + samples.size() * XorAppender.MAX_BYTES_PER_SAMPLE;
            MemorySegment chunk = arena.allocate(capacity);
            XorStateDescriptor.reset(state, 0);
            XorAppender appender = new XorAppender().wrap(state, 0, chunk, 0, capacity);
            for (long[] s : samples) {
                assertThat(appender.append(s[0], s[1])).isTrue();
            }
            return chunk.asSlice(0, appender.byteLength()).toArray(ValueLayout.JAVA_BYTE);
        }
    }
}
