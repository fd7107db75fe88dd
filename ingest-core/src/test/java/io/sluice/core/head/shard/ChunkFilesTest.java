package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stats.ShardStats.Counter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closed chunks in the chunk files, with real files: a series' list grows past 1,000 chunks (no
 * cap); once written, closed chunks hold no chunk memory (read through the mappings); a restart
 * from a checkpoint lists them by reference (no copy, nothing replayed) and they read back bit for
 * bit, chunk by chunk.
 */
class ChunkFilesTest {
    private static final int SERIES = 2;
    private static final int SAMPLES_PER_SERIES = 130_000; // ~1,080 chunks of ~120 samples at 1 s
    private static final long T0 = 1_700_000_000_000L;
    @TempDir
    Path dir;

    private static ShardOptions options(ShardFixture f) {
        return f.options().withQueue(4, 1 << 20).withChunkFileBytes(1 << 20).withCheckpointIntervalMs(0)
                .withSeriesIdleTimeoutMs(0).withRetentionMs(0);
    }

    @Test
    void aThousandChunksPerSeriesLiveInTheFilesAndComeBackByReferenceBitExact() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options(f));
            byte[][] canon = new byte[SERIES][];
            long[][] values = new long[SERIES][SAMPLES_PER_SERIES];
            SplittableRandom random = new SplittableRandom(0xC4_0C5);
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "node_load1", "instance", "host-" + s);
                for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                    values[s][i] = Double.doubleToRawLongBits(Math.round((2 + Math.sin(i * 0.01) + random.nextDouble(0.1)) * 100) / 100.0);
                }
            }
            int stream = f.streams.idOf("m", 0);
            int offset = 0;
            for (int from = 0; from < SAMPLES_PER_SERIES; from += 20_000) {
                for (int s = 0; s < SERIES; s++) {
                    ShardBatch batch = shard.acquireBatch();
                    if (batch == null) {
                        f.drain();
                        batch = shard.acquireBatch();
                    }
                    assertThat(batch.record(stream, offset++)).isTrue();
                    assertThat(batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length)).isTrue();
                    for (int i = from; i < Math.min(SAMPLES_PER_SERIES, from + 20_000); i++) {
                        assertThat(batch.sample(T0 + i * 1000L, values[s][i])).isTrue();
                    }
                    shard.submit(batch);
                }
                f.drain();
            }
            assertThat(shard.checkpoint()).isTrue(); // flushes: closed chunks leave memory
            List<byte[]> chunks = exactChunks(shard);
            assertThat(chunks.size()).as("closed chunks + open ones of %d series", SERIES).isGreaterThan(SERIES * 1_000);
            assertThat(shard.chunkBytesInUse()).as("only the open blocks and the lists stay in chunk memory")
                    .isLessThan(SERIES * (2_048 + 4_096));
            checkSamples(shard, values);
            shard.close();

            Shard restarted = f.open(options(f));
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).isZero();
            assertThat(restarted.stats().get(Counter.RESTORED_SAMPLES)).isEqualTo((long) SERIES * SAMPLES_PER_SERIES);
            assertThat(restarted.chunkBytesInUse()).as("restored by reference, not copied").isLessThan(SERIES * (2_048 + 4_096));
            List<byte[]> after = exactChunks(restarted);
            assertThat(after).hasSameSizeAs(chunks);
            for (int i = 0; i < chunks.size(); i++) {
                assertThat(after.get(i)).as("chunk %d", i).isEqualTo(chunks.get(i));
            }
            checkSamples(restarted, values);
        }
    }

    /** Every chunk of every series, exactly as remote-read would send it. */
    private static List<byte[]> exactChunks(Shard shard) {
        List<byte[]> out = new ArrayList<>();
        SeriesSnapshot snapshot = new SeriesSnapshot();
        SeriesSnapshot.ExactChunk exact = new SeriesSnapshot.ExactChunk();
        for (int id = 0; id < shard.seriesCount(); id++) {
            shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            for (int c = 0; c < snapshot.chunkCount(); c++) {
                snapshot.exactChunk(c, exact);
                out.add(exact.toByteArray());
            }
        }
        return out;
    }

    private static void checkSamples(Shard shard, long[][] values) {
        SeriesSnapshot snapshot = new SeriesSnapshot();
        for (int id = 0; id < shard.seriesCount(); id++) {
            shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            int s = Integer.parseInt(snapshot.labels().get("instance").substring("host-".length()));
            int i = 0;
            for (SeriesSnapshot.Samples it = snapshot.samples(); it.next(); i++) {
                assertThat(it.timestampMs()).isEqualTo(T0 + i * 1000L);
                if (it.valueBits() != values[s][i]) {
                    throw new AssertionError("series " + s + " sample " + i + ": " + it.value() + " != "
                            + Double.longBitsToDouble(values[s][i]));
                }
            }
            assertThat(snapshot.samples().hasCorruptChunk()).isFalse();
            assertThat(i).isEqualTo(values[s].length);
        }
    }
}
