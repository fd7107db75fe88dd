package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch the WAL could not take is held and retried with a back-off (10 ms, doubling to 1 s), not
 * every loop turn: each try may create a segment file on a disk that is full. The failure here is a
 * WAL directory that vanished, so the next segment cannot be created; the shard's clock is the
 * fixture's, moved by hand.
 */
class ShardRetryBackoffTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void heldBatchIsRetriedAfterTenMillisecondsThenTwentyAndResumesWhenTheWalCanBeWrittenAgain() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withWalSegmentBytes(64 << 10));
            int stream = f.streams.idOf("metrics", 0);
            Path walDir = f.options().walDirectory();
            int series = feed(f, shard, stream, 0, 50);
            assertThat(shard.walError()).isNull();

            deleteRecursively(walDir); // the open segment stays mapped; the next one cannot be created
            while (shard.walError() == null) {
                series = feed(f, shard, stream, series, 1);
            }
            String firstError = shard.walError();
            assertThat(firstError).contains("cannot write its WAL");
            int heldQueue = shard.queueDepth();

            f.clockNs.addAndGet(10 * MS);                        // first back-off over: retried, fails again
            assertThat(shard.doWork()).isZero();
            assertThat(shard.walError()).isNotNull();

            Files.createDirectories(walDir);                      // space is back
            f.clockNs.addAndGet(19 * MS);                        // the second back-off is 20 ms
            assertThat(shard.doWork()).isZero();
            assertThat(shard.walError()).as("retried before its back-off ended").isNotNull();
            assertThat(shard.queueDepth()).isEqualTo(heldQueue);

            f.clockNs.addAndGet(MS);
            assertThat(shard.doWork()).isPositive();
            assertThat(shard.walError()).isNull();
            f.drain();
            assertThat(shard.queueDepth()).isZero();
            assertThat(shard.seriesCount()).isEqualTo(series);
            assertThat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE)).hasSize(series)
                    .allSatisfy((labels, samples) -> assertThat(samples).hasSize(1));
        }
    }

    /** Submits {@code batches} batches of 20 new series with one sample each and applies them; returns the series count. */
    private static int feed(ShardFixture f, Shard shard, int stream, int firstSeries, int batches) {
        int s = firstSeries;
        for (int b = 0; b < batches; b++) {
            ShardBatch batch = shard.acquireBatch();
            if (batch == null) {
                throw new AssertionError("no free batch: the shard holds " + shard.queueDepth());
            }
            batch.record(stream, s);
            for (int e = 0; e < 20; e++, s++) {
                byte[] labels = f.canonical("__name__", "backoff_test_metric", "instance", "host-" + s, "job", "node");
                assertThat(batch.series(f.hash(labels), labels, 0, labels.length)).isTrue();
                assertThat(batch.sample(1_700_000_000_000L, Double.doubleToRawLongBits(s))).isTrue();
            }
            shard.submit(batch);
            shard.doWork();
            if (shard.walError() != null) {
                return s;
            }
        }
        return s;
    }

    private static void deleteRecursively(Path path) throws IOException {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
