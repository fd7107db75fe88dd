package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot path allocates nothing per sample: appending to existing series (batch fill, shard apply,
 * chunk encode, WAL record) and iterating them back. Measured on this thread with ThreadMXBean,
 * after a warm-up, so the bound does not depend on the machine's speed.
 */
class ShardAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SERIES = 1_000;
    @TempDir
    Path dir;

    private long batchT;

    private void ingest(ShardFixture f, Shard shard, int stream, byte[][] canon, long[] hashes, int batches) {
        for (int b = 0; b < batches; b++) {
            ShardBatch batch = shard.acquireBatch();
            if (batch == null) {
                f.drain();
                batch = shard.acquireBatch();
            }
            batch.record(stream, batchT);
            long t = 1_700_000_000_000L + batchT * 15_000;
            for (int s = 0; s < SERIES; s++) {
                batch.series(hashes[s], canon[s], 0, canon[s].length);
                batch.sample(t, Double.doubleToRawLongBits(Math.round((100 + s + Math.sin(batchT * 0.1 + s)) * 100) / 100.0));
            }
            shard.submit(batch);
            batchT++;
        }
        f.drain();
    }

    @Test
    void appendingAndReadingAMillionSamplesAllocatesLessThanOneBytePerSample() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            // Big segments and batches: no WAL roll and one batch per 1,000 samples during the measurement.
            Shard shard = f.open(f.options().withWalSegmentBytes(128L << 20).withQueue(8, 128 * 1024));
            int stream = f.streams.idOf("metrics", 0);
            byte[][] canon = new byte[SERIES][];
            long[] hashes = new long[SERIES];
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "node_cpu_seconds_total", "cpu", Integer.toString(s % 8),
                        "instance", "host-" + s / 8 + ":9100", "job", "node", "mode", "user");
                hashes[s] = f.hash(canon[s]);
            }
            ingest(f, shard, stream, canon, hashes, 300);          // warm-up: series exist, code is compiled

            long before = THREADS.getCurrentThreadAllocatedBytes();
            ingest(f, shard, stream, canon, hashes, 1_000);       // 1,000,000 samples
            long appendBytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertThat(shard.stats().get(ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(1_300L * SERIES);
            System.out.printf("append: %d bytes for 1,000,000 samples (%.4f B/sample)%n", appendBytes, appendBytes / 1e6);
            assertThat(appendBytes).as("bytes allocated appending 1,000,000 samples").isLessThan(1_000_000);

            SeriesSnapshot snapshot = new SeriesSnapshot();
            long sum = 0;
            for (int round = 0; round < 2; round++) {                // round 0 warms up and sizes the buffers
                before = THREADS.getCurrentThreadAllocatedBytes();
                long read = 0;
                for (int id = 0; id < shard.seriesCount(); id++) {
                    shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
                    for (SeriesSnapshot.Samples it = snapshot.samples(); it.next(); ) {
                        sum += it.valueBits();
                        read++;
                    }
                }
                assertThat(read).isEqualTo(1_300L * SERIES);
            }
            long readBytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("read: %d bytes for 1,300,000 samples (%.4f B/sample)%n", readBytes, readBytes / 1.3e6);
            assertThat(readBytes).as("bytes allocated iterating 1,300,000 samples (checksum %d)", sum).isLessThan(1_300_000);
        }
    }
}
