package io.sluice.core.head.shard;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Builds shards and batches for tests; drives a shard by calling doWork() on the test thread. */
final class ShardFixture implements AutoCloseable {
    final Path dir;
    final StreamRegistry streams = new StreamRegistry();
    final MemoryAccounting accounting = new MemoryAccounting();
    final AtomicLong clockNs = new AtomicLong();
    final LabelsBuilder labels = new LabelsBuilder(LabelLimits.DEFAULT);
    Shard shard;

    ShardFixture(Path dir) {
        this.dir = dir;
    }

    ShardOptions options() {
        return ShardOptions.defaults(dir.resolve("wal")).withWalSegmentBytes(1 << 20);
    }

    Shard open() throws IOException {
        return open(options());
    }

    Shard open(ShardOptions options) throws IOException {
        return open(options, null);
    }

    /** A shard whose chunk file writes put their chunks in {@code order} (null: append order). */
    Shard open(ShardOptions options, io.sluice.core.head.chunkfiles.ChunkFileWriter.ChunkOrder order) throws IOException {
        shard = new Shard(0, options, streams, accounting, clockNs::get);
        shard.chunkOrder(order);
        shard.start();
        return shard;
    }

    /** Canonical bytes of a label set given as name, value, name, value... */
    byte[] canonical(String... pairs) {
        labels.reset();
        for (int i = 0; i < pairs.length; i += 2) {
            labels.add(pairs[i], pairs[i + 1]);
        }
        LabelsStatus status = labels.build();
        if (status != LabelsStatus.OK) {
            throw new IllegalArgumentException(status + " for " + String.join(",", pairs));
        }
        return java.util.Arrays.copyOf(labels.bytes(), labels.length());
    }

    long hash(byte[] canonical) {
        return io.sluice.core.labels.MurmurHash3.hash64(canonical, 0, canonical.length);
    }

    /** Applies everything queued. */
    void drain() {
        while (shard.queueDepth() > 0) {
            shard.doWork();
        }
        shard.doWork();
    }

    /** All samples of every series, by label string, read through snapshots. */
    Map<String, List<long[]>> readAll(long minT, long maxT) {
        Map<String, List<long[]>> out = new LinkedHashMap<>();
        SeriesSnapshot snapshot = new SeriesSnapshot();
        for (int id = 0; id < shard.seriesCount(); id++) {
            shard.snapshot(id, minT, maxT, snapshot);
            List<long[]> samples = new ArrayList<>();
            for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); ) {
                samples.add(new long[] {s.timestampMs(), s.valueBits()});
            }
            if (snapshot.samples().hasCorruptChunk()) {
                throw new AssertionError("corrupt chunk in series " + id);
            }
            out.put(snapshot.labels().toString(), samples);
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        if (shard != null) {
            shard.close();
        }
    }
}
