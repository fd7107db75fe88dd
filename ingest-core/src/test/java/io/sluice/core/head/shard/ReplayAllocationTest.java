package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WAL replay allocates nothing per sample and nothing per record: replaying a WAL with 500,000
 * more samples (and 1,000 more records) allocates no more than a fixed slack more, measured with
 * ThreadMXBean on this thread (the shard is driven by hand, so its replay runs here), after a
 * warm-up replay that compiles the code.
 *
 * <p>Measured from the first record the replay reports ({@link Shard#replayListener}) to the last, so
 * only the record loop counts. Measured around the whole {@code start()}, the WAL's open, the chunk
 * files and the rest that do not grow with the records were in it too, and one of their one-off
 * allocations (~64 KiB, at a fixed count of shard starts in a JVM: the same with C1 only, without
 * escape analysis and without TLABs) sometimes landed in the larger replay alone: 131,560 B against
 * the 131,072 B budget, where ~66,000 is usual.
 */
class ReplayAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SERIES = 1_000;
    @TempDir
    Path dir;

    /** Writes {@code batches} scrapes of every series (one batch, one SAMPLES and one OFFSETS record each) into WAL {@code name}. */
    private void write(String name, int batches) throws IOException {
        try (ShardFixture f = new ShardFixture(dir.resolve(name))) {
            Shard shard = f.open(options(f));
            int stream = f.streams.idOf("metrics", 0);
            byte[][] canon = new byte[SERIES][];
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "node_filesystem_avail_bytes", "instance", "host-" + s / 10 + ":9100",
                        "job", "node", "device", "sd" + (char) ('a' + s % 10));
            }
            for (int b = 0; b < batches; b++) {
                ShardBatch batch = shard.acquireBatch();
                if (batch == null) {
                    f.drain();
                    batch = shard.acquireBatch();
                }
                batch.record(stream, b);
                long t = 1_700_000_000_000L + b * 15_000L;
                for (int s = 0; s < SERIES; s++) {
                    batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length);
                    batch.sample(t, Double.doubleToRawLongBits(Math.round((20 + s % 70 + 5 * Math.sin(b * 0.01 + s)) * 100) / 100.0));
                }
                shard.submit(batch);
            }
            f.drain();
            shard.closeWithoutCheckpoint(); // a checkpoint on close would leave no WAL to replay
        }
    }

    private static ShardOptions options(ShardFixture f) {
        return f.options().withWalSegmentBytes(128L << 20).withQueue(8, 128 * 1024);
    }

    /**
     * Replays WAL {@code name} on this thread; returns the bytes this thread allocated from the first
     * record replayed to the last.
     */
    private long replay(String name, long expectedSamples) throws IOException {
        try (ShardFixture f = new ShardFixture(dir.resolve(name))) {
            Shard shard = new Shard(0, options(f), f.streams, f.accounting, f.clockNs::get);
            long[] firstAndLast = {-1, -1}; // allocated bytes at the first and the latest record
            shard.replayListener((s, progress) -> {
                long now = THREADS.getCurrentThreadAllocatedBytes();
                if (firstAndLast[0] < 0) {
                    firstAndLast[0] = now;
                }
                firstAndLast[1] = now;
            });
            shard.start();
            assertThat(shard.stats().get(ShardStats.Counter.REPLAYED_SAMPLES)).isEqualTo(expectedSamples);
            assertThat(firstAndLast[0]).as("records replayed").isNotNegative();
            shard.closeWithoutCheckpoint(); // the same WAL is replayed again
            return firstAndLast[1] - firstAndLast[0];
        }
    }

    @Test
    void replayAllocatesNothingPerSampleOrRecord() throws IOException {
        write("warm", 600);
        write("small", 100);
        write("large", 600);
        for (int i = 0; i < 3; i++) {
            replay("warm", 600L * SERIES); // compiles the replay path
        }
        long small = replay("small", 100L * SERIES);
        long large = replay("large", 600L * SERIES);
        System.out.printf("replay: %d bytes for 100,000 samples, %d bytes for 600,000 samples%n", small, large);
        // Measured ~68 KB (0.14 B/sample): what grows with the data rather than per sample, e.g. the chunk memory's
        // pages and their in-use bitmaps. An object per sample (500,000 more), or 64 B or more per record (1,000
        // more), would break this bound of 0.25 B/sample.
        assertThat(large - small).as("extra bytes allocated replaying 500,000 more samples").isLessThan(128 * 1024);
    }
}
