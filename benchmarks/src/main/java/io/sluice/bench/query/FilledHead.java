package io.sluice.bench.query;

import io.sluice.bench.head.NodeCpuSeries;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A real {@link Head} (its shard threads running) holding {@link NodeCpuSeries} with {@code rounds}
 * samples each, 15 s apart from {@link #FIRST_MS}; filled through the shards' batch queues as the
 * consumers do, and returned once every sample is applied. Its WALs live under /work/bench-tmp
 * (override with -Dsluice.bench.dir=) and are deleted on close.
 */
public final class FilledHead implements AutoCloseable {
    public static final long FIRST_MS = 1_700_000_000_000L;
    public static final long STEP_MS = 15_000;

    public final Head head;
    public final long samples;
    private final Path dir;
    private long nextOffset;

    public FilledHead(int series, int rounds, int shards) {
        try {
            Path base = Path.of(System.getProperty("sluice.bench.dir", "/work/bench-tmp"));
            Files.createDirectories(base);
            dir = Files.createTempDirectory(base, "head");
            head = new Head(HeadOptions.defaults(dir).withShards(shards), new StreamRegistry(), new MemoryAccounting());
            head.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        NodeCpuSeries data = new NodeCpuSeries(series);
        int stream = head.streams().idOf("metrics", 0);
        ShardBatch[] open = new ShardBatch[head.shardCount()];
        for (int r = 0; r < rounds; r++) {
            if (r == 1) {
                // Every series exists now. A queried head makes its label order on a background thread
                // long before the first chunks are cut (its queries, then its chunk writes, ask for it);
                // this fill cuts them within seconds, so the order is made here, as it would be by then.
                submitAll(open);
                awaitApplied(series);
                head.makeLabelOrder();
            }
            for (int s = 0; s < series; s++) {
                int shard = head.shardOf(data.hashes[s]);
                long t = FIRST_MS + r * STEP_MS;
                if (open[shard] == null || !add(open[shard], data, s, t, r)) {
                    if (open[shard] != null) {
                        head.shard(shard).submit(open[shard]);
                    }
                    // a new record per batch: offsets must grow, or the shard skips it as already applied
                    open[shard] = acquire(head.shard(shard));
                    open[shard].record(stream, nextOffset++);
                    if (!add(open[shard], data, s, t, r)) {
                        throw new IllegalStateException("one series does not fit an empty batch");
                    }
                }
            }
        }
        submitAll(open);
        samples = (long) series * rounds;
        awaitApplied(samples);
    }

    private void submitAll(ShardBatch[] open) {
        for (int shard = 0; shard < open.length; shard++) {
            if (open[shard] != null) {
                head.shard(shard).submit(open[shard]);
                open[shard] = null;
            }
        }
    }

    private static boolean add(ShardBatch batch, NodeCpuSeries data, int s, long timeMs, int round) {
        int mark = batch.mark();
        if (batch.series(data.hashes[s], data.labels[s], 0, data.labels[s].length)
                && batch.sample(timeMs, NodeCpuSeries.valueBits(s, round))) {
            return true;
        }
        batch.rewind(mark);
        return false;
    }

    private static ShardBatch acquire(Shard shard) {
        ShardBatch batch;
        while ((batch = shard.acquireBatch()) == null) {
            Thread.onSpinWait(); // the shard thread frees batches as it applies them
        }
        return batch;
    }

    private void awaitApplied(long expected) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (appended() < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("head applied " + appended() + " of " + expected + " samples in 120 s");
            }
            Thread.onSpinWait();
        }
    }

    long appended() {
        long n = 0;
        for (int s = 0; s < head.shardCount(); s++) {
            n += head.shard(s).stats().get(ShardStats.Counter.SAMPLES_APPENDED);
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        head.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
