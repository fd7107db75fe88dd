package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.core.labels.LabelsView;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heap memory of late samples, as the gauges read it ({@link Shard#outOfOrderBytes()},
 * {@link Shard#outOfOrderSeriesCount()}, {@link MemoryReport#outOfOrderBytes()}): nothing while every
 * series receives its samples in order; it grows with late samples, comes back the same after a
 * checkpoint restore and after a WAL replay, stays while an idle series' open chunk is cut (its late
 * samples still read), and returns to zero when the retention drops them.
 */
class OutOfOrderMemoryTest {
    private static final long START_MS = 1_700_000_000_000L;
    private static final long STEP_MS = 15_000;
    private static final int SERIES = 40;
    private static final int LATE_SERIES = 10;
    private static final int ROUNDS = 200;
    private static final long HOUR_MS = 3_600_000;

    @TempDir
    Path dir;

    private ShardOptions options() {
        return ShardOptions.defaults(dir.resolve("wal")).withWalSegmentBytes(64 << 10).withChunkFileBytes(64 << 10)
                .withCheckpointIntervalMs(0).withOutOfOrderWindowMs(HOUR_MS)
                .withSeriesIdleTimeoutMs(HOUR_MS).withRetentionMs(6 * HOUR_MS);
    }

    @Test
    void lateSamplesAreCountedRestoredAndReleasedByTheRetention() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options());
            int stream = f.streams.idOf("metrics", 0);
            byte[][] canon = new byte[SERIES][];
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "m", "instance", "host-" + s);
            }
            long[] offset = {0};
            // In order only: every round's sample of every series, odd rounds only for now.
            for (int k = 1; k < ROUNDS; k += 2) {
                append(f, shard, stream, offset, canon, 0, SERIES, k);
            }
            assertThat(shard.outOfOrderBytes()).as("in-order samples only").isZero();
            assertThat(shard.outOfOrderSeriesCount()).isZero();
            assertThat(shard.memoryReport().outOfOrderBytes()).isZero();

            // The even rounds of the first LATE_SERIES series arrive late, newest first.
            for (int k = ROUNDS - 2; k >= 0; k -= 2) {
                append(f, shard, stream, offset, canon, 0, LATE_SERIES, k);
            }
            int late = LATE_SERIES * ROUNDS / 2;
            assertThat(shard.stats().get(Counter.SAMPLES_OUT_OF_ORDER)).isEqualTo(late);
            long bytes = shard.outOfOrderBytes();
            assertThat(shard.outOfOrderSeriesCount()).isEqualTo(LATE_SERIES);
            assertThat(shard.memoryReport().outOfOrderBytes()).isEqualTo(bytes);
            // Between the chunks' bytes per sample and a buffered sample's 16, plus the per-series parts.
            assertThat(bytes).isBetween((long) late, 16L * late + 600L * LATE_SERIES);
            String before = flat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE));
            assertThat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE).get(name(canon[0]))).hasSize(ROUNDS);
            assertThat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE).get(name(canon[SERIES - 1]))).hasSize(ROUNDS / 2);

            // A checkpoint restore and a WAL replay bring the same samples back, and their memory.
            shard.close();
            f.shard = null;
            shard = f.open(options());
            assertThat(flat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE))).isEqualTo(before);
            assertThat(shard.outOfOrderSeriesCount()).isEqualTo(LATE_SERIES);
            assertThat(shard.outOfOrderBytes()).isBetween((long) late, 16L * late + 600L * LATE_SERIES);
            shard.closeWithoutCheckpoint(); // nothing appended since the checkpoint: replays nothing
            f.shard = null;
            shard = f.open(options());
            assertThat(shard.outOfOrderSeriesCount()).isEqualTo(LATE_SERIES);

            // The late series go idle (the others move on by more than the idle timeout): their open
            // chunks are cut at the checkpoint, their late samples stay, and read.
            int round = ROUNDS;
            for (; round < ROUNDS + 2 * HOUR_MS / STEP_MS; round++) {
                append(f, shard, stream, offset, canon, LATE_SERIES, SERIES, round);
            }
            assertThat(shard.checkpoint()).isTrue();
            assertThat(shard.stats().get(Counter.SERIES_IDLE_CUT)).isGreaterThanOrEqualTo(LATE_SERIES);
            assertThat(shard.outOfOrderSeriesCount()).isEqualTo(LATE_SERIES);
            assertThat(f.readAll(Long.MIN_VALUE, START_MS + ROUNDS * STEP_MS).get(name(canon[0]))).hasSize(ROUNDS);

            // The shard's newest moves past the retention of every late sample: dropped at the next checkpoint.
            for (; round < ROUNDS + 7 * HOUR_MS / STEP_MS; round++) {
                append(f, shard, stream, offset, canon, LATE_SERIES, SERIES, round);
            }
            assertThat(shard.checkpoint()).isTrue();
            assertThat(shard.outOfOrderBytes()).isZero();
            assertThat(shard.outOfOrderSeriesCount()).isZero();
            assertThat(shard.memoryReport().outOfOrderBytes()).isZero();
            assertThat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE).get(name(canon[0]))).isNullOrEmpty();
        }
    }

    private static String flat(Map<String, List<long[]>> all) {
        StringBuilder sb = new StringBuilder();
        all.forEach((series, samples) -> {
            sb.append(series).append(':');
            samples.forEach(s -> sb.append(' ').append(s[0]).append('=').append(s[1]));
            sb.append('\n');
        });
        return sb.toString();
    }

    private static String name(byte[] canonical) {
        return new LabelsView().wrap(canonical, 0, canonical.length).toString();
    }

    /** One record: sample {@code k} of series {@code from..to-1}, applied. */
    private static void append(ShardFixture f, Shard shard, int stream, long[] offset, byte[][] canon, int from, int to, int k) {
        ShardBatch batch = shard.acquireBatch();
        batch.record(stream, offset[0]++);
        for (int s = from; s < to; s++) {
            assertThat(batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length)).isTrue();
            assertThat(batch.sample(START_MS + k * STEP_MS, Double.doubleToRawLongBits(s * 1000 + k))).isTrue();
        }
        shard.submit(batch);
        f.drain();
    }
}
