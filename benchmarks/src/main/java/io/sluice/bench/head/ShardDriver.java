package io.sluice.bench.head;

import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One shard driven by hand on the benchmark thread (the shard thread's role), with node-exporter
 * like series: 10 labels, realistic two-decimal gauge values, 15 s spacing. The WAL lives under
 * /work (a real disk, as in production), never fsynced inside a measurement.
 */
final class ShardDriver implements AutoCloseable {
    final Shard shard;
    final StreamRegistry streams = new StreamRegistry();
    final MemoryAccounting accounting = new MemoryAccounting();
    final int stream;
    final byte[][] labels;
    final long[] hashes;
    private final Path dir;
    private long round;

    ShardDriver(int series, long walSegmentBytes) {
        try {
            Path base = Path.of(System.getProperty("sluice.bench.dir", "/work/bench-tmp"));
            Files.createDirectories(base);
            dir = Files.createTempDirectory(base, "shard");
            ShardOptions options = ShardOptions.defaults(dir.resolve("wal")).withWalSegmentBytes(walSegmentBytes)
                    .withQueue(4, Math.max(64 * 1024, series * 320 + 4096)).withMaxSeries(Integer.MAX_VALUE);
            shard = new Shard(0, options, streams, accounting, System::nanoTime);
            shard.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stream = streams.idOf("metrics", 0);
        NodeCpuSeries generated = new NodeCpuSeries(series);
        labels = generated.labels;
        hashes = generated.hashes;
    }

    /** Fills one batch with one sample per series (first {@code count} series) and applies it. */
    void round(int count) {
        ShardBatch batch = shard.acquireBatch();
        long r = round++;
        batch.record(stream, r);
        long t = 1_700_000_000_000L + r * 15_000;
        for (int s = 0; s < count; s++) {
            boolean fits = batch.series(hashes[s], labels[s], 0, labels[s].length)
                    && batch.sample(t, NodeCpuSeries.valueBits(s, r));
            if (!fits) {
                throw new IllegalStateException("batch of " + batch.capacityBytes() + " bytes full at series " + s);
            }
        }
        shard.submit(batch);
        shard.doWork();
    }

    /** One batch with one sample for each of series [from, from + count). */
    void roundRange(int from, int count) {
        ShardBatch batch = shard.acquireBatch();
        long r = round++;
        batch.record(stream, r);
        for (int s = from; s < from + count; s++) {
            if (!batch.series(hashes[s], labels[s], 0, labels[s].length) || !batch.sample(1_700_000_000_000L, Double.doubleToRawLongBits(s))) {
                throw new IllegalStateException("batch of " + batch.capacityBytes() + " bytes full at series " + s);
            }
        }
        shard.submit(batch);
        shard.doWork();
    }

    /** Frees the WAL segments behind the writer, so a long benchmark does not fill the disk. */
    void trimWal() {
        try {
            shard.wal().deleteSegmentsBefore(shard.wal().writtenPosition());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        shard.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
