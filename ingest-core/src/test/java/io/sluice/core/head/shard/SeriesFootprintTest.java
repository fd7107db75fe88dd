package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory per active series beyond its label text and samples: goal <= 200 bytes (Prometheus'
 * head: ~730 B plus labels, on the GC heap). 100,000 node-exporter-like series with 10 labels,
 * one sample each.
 */
class SeriesFootprintTest {
    @TempDir
    Path dir;

    @Test
    void aSeriesCostsAtMost200BytesBeyondItsLabels() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withWalSegmentBytes(64L << 20).withQueue(4, 1 << 20));
            int stream = f.streams.idOf("m", 0);
            int series = 100_000;
            ShardBatch batch = shard.acquireBatch();
            batch.record(stream, 0);
            for (int s = 0; s < series; s++) {
                byte[] c = f.canonical("__name__", "node_cpu_seconds_total", "cpu", Integer.toString(s % 16),
                        "mode", s % 2 == 0 ? "user" : "system", "instance", "host-" + s / 32 + ".example.org:9100", "job", "node",
                        "env", "prod", "region", "eu-west-" + s % 3, "cluster", "c" + s % 7, "team", "platform", "service", "svc-" + s % 50);
                if (!batch.series(f.hash(c), c, 0, c.length) || !batch.sample(1_000, 0)) {
                    shard.submit(batch);
                    f.drain();
                    batch = shard.acquireBatch();
                    batch.record(stream, s);
                    batch.series(f.hash(c), c, 0, c.length);
                    batch.sample(1_000, 0);
                }
            }
            shard.submit(batch);
            f.drain();
            MemoryReport report = shard.memoryReport();
            System.out.println(report + String.format(" -> %.1f B/series overhead, %.1f B/series label text",
                    report.overheadBytesPerSeries(), (double) report.labelTextBytes() / series));
            assertThat(report.series()).isEqualTo(series);
            assertThat(report.overheadBytesPerSeries()).as("bytes per series beyond label text: %s", report).isLessThanOrEqualTo(200);
            assertThat(report.outOfOrderBytes()).as("series with in-order samples only: nothing out of order").isZero();
        }
    }
}
