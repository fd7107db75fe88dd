package io.sluice.core.head;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Moves a head's data to a new shard count, before the shards start, on the calling thread.
 *
 * <p>The old {@code shard-i} directories are first moved into {@code reshard-from.tmp/}, which is then
 * renamed to {@code reshard-from/} (a crash before that rename leaves old directories only, which the
 * next start moves on; a crash after it restarts the move from {@code reshard-from/}, deleting the new
 * shard directories left behind). Then,
 * one old shard at a time, it is opened as usual (checkpoint + WAL tail), and every series is fed,
 * sample by sample in time order, to the new shard its hash routes to, through the ordinary batch
 * path (SERIES and SAMPLES records in the new WAL, chunk cuts to the new chunk files). Each new
 * shard then gets, per stream, the <em>lowest</em> watermark over the old shards, and is closed,
 * which checkpoints it; finally {@code reshard-from/} is deleted.
 *
 * <p>Why the lowest watermark is safe: records between it and an old shard's own watermark are
 * delivered again by Kafka; their samples reach series that already hold them, and the head's
 * append rule drops them — same timestamp and value as the series' last sample is DUPLICATE
 * (ignored), an older timestamp is OUT_OF_ORDER (rejected, counted) — so nothing is stored twice.
 *
 * <p>Memory: one old shard is in memory at a time, beside the new shards being filled.
 */
public final class Reshard {
    private static final System.Logger LOG = System.getLogger(Reshard.class.getName());
    static final String OLD_DIRECTORY = "reshard-from";

    private Reshard() {
    }

    /** Shard directory indexes present in {@code dataDirectory}. */
    static TreeSet<Integer> shardDirectories(Path directory) throws IOException {
        TreeSet<Integer> found = new TreeSet<>();
        if (Files.isDirectory(directory)) {
            try (Stream<Path> files = Files.list(directory)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    String name = p.getFileName().toString();
                    if (name.startsWith("shard-") && Files.isDirectory(p)) {
                        try {
                            found.add(Integer.parseInt(name.substring("shard-".length())));
                        } catch (NumberFormatException e) {
                            // not ours
                        }
                    }
                }
            }
        }
        return found;
    }

    /** Whether the data directory holds shards of another count (or an interrupted move). */
    static boolean needed(HeadOptions options) throws IOException {
        Path from = options.dataDirectory().resolve(OLD_DIRECTORY);
        TreeSet<Integer> present = shardDirectories(options.dataDirectory());
        boolean sameCount = present.size() == options.shards() && present.last() == options.shards() - 1;
        return Files.isDirectory(from) || Files.isDirectory(options.dataDirectory().resolve(OLD_DIRECTORY + ".tmp"))
                || (!present.isEmpty() && !sameCount);
    }

    /** Moves the data to {@code options.shards()} shards; returns how many series moved. */
    static long run(HeadOptions options, StreamRegistry streams, MemoryAccounting accounting) throws IOException {
        Path data = options.dataDirectory();
        Path from = data.resolve(OLD_DIRECTORY);
        if (!Files.isDirectory(from)) {
            // Old directories go into a staging directory that becomes reshard-from/ in one rename: a
            // crash before it leaves only old shard directories around, which the next start moves on.
            Path staging = data.resolve(OLD_DIRECTORY + ".tmp");
            Files.createDirectories(staging);
            for (int i : shardDirectories(data)) {
                Files.move(data.resolve("shard-" + i), staging.resolve("shard-" + i));
            }
            io.sluice.core.head.chunkfiles.PersistFiles.syncDirectory(staging);
            Files.move(staging, from, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            io.sluice.core.head.chunkfiles.PersistFiles.syncDirectory(data);
        } else {
            for (int i : shardDirectories(data)) {
                deleteTree(data.resolve("shard-" + i)); // new shards of an interrupted move: start it again
            }
        }
        TreeSet<Integer> old = shardDirectories(from);
        LOG.log(System.Logger.Level.INFO, "moving " + old.size() + " shards in " + data + " to " + options.shards() + " shards");
        long[] lowest = new long[0];
        long moved = 0;
        Shard[] targets = new Shard[options.shards()];
        try {
            for (int j = 0; j < targets.length; j++) {
                targets[j] = new Shard(j, options.shard(j), streams, accounting, System::nanoTime);
                targets[j].start();
            }
            for (int i : old) {
                // a source is only read: no series limit, no checkpoint, nothing cut or dropped (its WAL
                // replays every late sample it holds, whatever the out-of-order window)
                ShardOptions at = options.perShard().withWalDirectory(from.resolve("shard-" + i).resolve("wal"))
                        .withMaxSeries(Integer.MAX_VALUE).withCheckpointIntervalMs(0).withSeriesIdleTimeoutMs(0).withRetentionMs(0);
                Shard source = new Shard(i, at, streams, accounting, System::nanoTime);
                try {
                    source.start();
                    moved += copySeries(source, targets);
                    lowest = lowerTo(lowest, source, streams);
                } finally {
                    source.closeWithoutCheckpoint();
                }
            }
            for (Shard target : targets) {
                handWatermarks(target, lowest);
            }
        } finally {
            for (Shard target : targets) {
                if (target != null) {
                    target.close(); // checkpoints
                }
            }
        }
        deleteTree(from);
        LOG.log(System.Logger.Level.INFO, "moved " + moved + " series to " + options.shards() + " shards");
        return moved;
    }

    private static long copySeries(Shard source, Shard[] targets) {
        SeriesSnapshot snapshot = new SeriesSnapshot();
        ShardBatch[] batches = new ShardBatch[targets.length];
        long moved = 0;
        for (int id = 0; id < source.seriesCount(); id++) {
            source.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            if (snapshot.chunkCount() == 0) {
                continue; // evicted, or never got a sample
            }
            long hash = source.seriesHash(id);
            int j = (int) (((hash >>> 32) * targets.length) >>> 32); // Head.shardOf
            boolean open = false;
            for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); ) {
                if (batches[j] == null) {
                    batches[j] = targets[j].acquireBatch();
                    open = false;
                }
                if (!open) {
                    if (!batches[j].series(hash, snapshot.labelsArray(), 0, snapshot.labelsLength())) {
                        flush(targets[j], batches, j);
                        batches[j] = targets[j].acquireBatch();
                        batches[j].series(hash, snapshot.labelsArray(), 0, snapshot.labelsLength());
                    }
                    open = true;
                }
                if (!batches[j].sample(s.timestampMs(), s.valueBits())) {
                    flush(targets[j], batches, j);
                    open = false;
                    batches[j] = targets[j].acquireBatch();
                    batches[j].series(hash, snapshot.labelsArray(), 0, snapshot.labelsLength());
                    batches[j].sample(s.timestampMs(), s.valueBits());
                    open = true;
                }
            }
            flush(targets[j], batches, j); // one series per hand-over keeps the batch logic simple
            moved++;
        }
        return moved;
    }

    private static void flush(Shard target, ShardBatch[] batches, int j) {
        if (batches[j] != null) {
            target.submit(batches[j]);
            batches[j] = null;
            while (target.queueDepth() > 0) {
                target.doWork();
            }
        }
    }

    private static long[] lowerTo(long[] lowest, Shard source, StreamRegistry streams) {
        int n = streams.size();
        long[] result = Arrays.copyOf(lowest, n);
        for (int s = lowest.length; s < n; s++) {
            result[s] = Long.MAX_VALUE;
        }
        for (int s = 0; s < n; s++) {
            result[s] = Math.min(result[s], source.durableWatermark(s));
        }
        return result;
    }

    private static void handWatermarks(Shard target, long[] lowest) {
        ShardBatch batch = target.acquireBatch();
        for (int s = 0; s < lowest.length; s++) {
            if (lowest[s] >= 0 && lowest[s] != Long.MAX_VALUE) {
                if (!batch.watermark(s, lowest[s])) {
                    flush(target, new ShardBatch[] {batch}, 0);
                    batch = target.acquireBatch();
                    batch.watermark(s, lowest[s]);
                }
            }
        }
        flush(target, new ShardBatch[] {batch}, 0);
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.forEach(all::add);
        }
        all.sort(Comparator.reverseOrder());
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }
}
