package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Batch latency from submit to the WAL sync that made the batch durable, on the shard's clock. */
class ShardDurableLatencyTest {
    @TempDir
    Path dir;

    private static void submit(ShardFixture f, int stream, long offset, byte[] labels) {
        ShardBatch batch = f.shard.acquireBatch();
        batch.record(stream, offset);
        batch.series(f.hash(labels), labels, 0, labels.length);
        batch.sample(1_000 + offset, Double.doubleToRawLongBits(offset));
        f.shard.submit(batch);
    }

    @Test
    void eachBatchIsReportedOnceAtTheSyncThatMadeItDurable() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            f.open();
            int stream = f.streams.idOf("m", 0);
            byte[] labels = f.canonical("__name__", "up", "job", "a");
            List<Long> reported = new ArrayList<>();

            submit(f, stream, 0, labels);  // before a listener: not tracked
            f.drain();
            f.shard.sync();
            f.shard.onBatchDurable(reported::add);

            f.clockNs.set(1_000);
            submit(f, stream, 1, labels);
            f.clockNs.set(5_000);
            submit(f, stream, 2, labels);
            f.drain(); // well inside the 100 ms group commit: applied, not synced
            assertThat(reported).isEmpty();

            f.clockNs.set(50_000_000);
            f.shard.sync();
            assertThat(reported).containsExactly(50_000_000L - 1_000, 50_000_000L - 5_000);

            f.clockNs.set(60_000_000);
            f.shard.sync(); // nothing new applied: nothing reported twice
            assertThat(reported).hasSize(2);
            assertThat(f.shard.stats().get(ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(3);
        }
    }

    @Test
    void manyBatchesBetweenTwoSyncsAreAllReported() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            f.open();
            int stream = f.streams.idOf("m", 0);
            byte[] labels = f.canonical("__name__", "up", "job", "a");
            submit(f, stream, 0, labels);
            f.drain(); // the WAL's first group commit happens here, at clock 0
            List<Long> reported = new ArrayList<>();
            f.shard.onBatchDurable(reported::add);
            for (int i = 1; i <= 200; i++) { // more than the tracker's initial 64
                f.clockNs.set(i);
                submit(f, stream, i, labels);
                f.drain();
            }
            f.clockNs.set(1_000);
            f.shard.sync();
            assertThat(reported).hasSize(200);
            assertThat(reported.getFirst()).isEqualTo(1_000 - 1);
            assertThat(reported.getLast()).isEqualTo(1_000 - 200);
        }
    }

    @Test
    void trackingAllocatesNothingPerBatchOnceWarm() throws IOException {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ShardFixture f = new ShardFixture(dir)) {
            f.open();
            int stream = f.streams.idOf("m", 0);
            byte[] labels = f.canonical("__name__", "up", "job", "a");
            long[] reported = new long[2]; // count, sum: no boxing in the listener
            f.shard.onBatchDurable(nanos -> {
                reported[0]++;
                reported[1] += nanos;
            });
            long offset = 0;
            for (int round = 0; round < 2; round++) { // round 0 warms up and grows the tracker to 10 batches
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int sync = 0; sync < 100; sync++) {
                    for (int b = 0; b < 10; b++) {
                        f.clockNs.addAndGet(1_000);
                        submit(f, stream, offset++, labels);
                        f.drain();
                    }
                    f.shard.sync();
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                if (round == 1) {
                    System.out.printf("1,000 batches tracked, 100 syncs: %d bytes allocated%n", allocated);
                    assertThat(allocated).as("bytes allocated over 1,000 batches and 100 syncs").isLessThan(16 * 1024);
                }
            }
            assertThat(reported[0]).isEqualTo(2_000);
            assertThat(reported[1]).isPositive();
        }
    }
}
