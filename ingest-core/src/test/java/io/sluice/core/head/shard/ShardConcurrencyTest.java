package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single writer, many readers: while a shard thread applies batches (cutting chunks, growing
 * blocks, creating series) a reader thread snapshots every series over and over. Every sample it
 * sees must be one that was appended — the value is a function of (series, timestamp) — in strictly
 * increasing time order, with no gap before the newest sample it saw; and at the end it sees all.
 * The second case also checkpoints while they read: closed chunks move from memory to the
 * mapped chunk files at each flush, small chunk files roll, retention drops old chunks from the
 * lists and deletes (and later unmaps) files.
 */
class ShardConcurrencyTest {
    private static final int SERIES = 200;
    private static final int ROUNDS = 1_500;
    @TempDir
    Path dir;

    private static long valueBits(int series, long t) {
        return Double.doubleToRawLongBits(series * 1_000.0 + t / 1000 % 997 + (t % 7 == 0 ? 0.5 : 0.25));
    }

    @Test
    void readersNeverSeeTornMissingOrForeignSamples() throws Exception {
        run(0, 0);
    }

    @Test
    void readersNeverSeeTornDataWhileChunksMoveToMappedFilesAndRetentionDeletesThem() throws Exception {
        long retentionMs = 600_000; // 600 rounds of the 1,500
        run(100, retentionMs);
        try (var files = Files.list(dir.resolve("chunks"))) {
            assertThat(files.mapToInt(p -> io.sluice.core.head.chunkfiles.ChunkFileDescriptor.parseIndex(p.getFileName().toString()))
                    .filter(i -> i >= 0).min().orElseThrow()).as("retention deleted the oldest chunk files").isPositive();
        }
    }

    /**
     * As above while every write of the chunk files reverses the order its chunks were cut in (ids
     * descending; a third of the series unranked, after them): each chunk gets its final ref from the
     * write, under the series' sequence lock, while readers copy it.
     */
    @Test
    void readersNeverSeeTornDataWhileEachWriteReordersItsChunks() throws Exception {
        run(100, 600_000, new io.sluice.core.head.chunkfiles.ChunkFileWriter.ChunkOrder() {
            @Override
            public int rank(int seriesId) {
                return seriesId % 3 == 0 ? -1 : SERIES - seriesId;
            }

            @Override
            public void unranked(int chunks) {
            }
        });
    }

    private void run(int checkpointEvery, long retentionMs) throws Exception {
        run(checkpointEvery, retentionMs, null);
    }

    /** Checkpoints every {@code checkpointEvery} rounds (0: never) with the retention given (0: none) and chunk order. */
    private void run(int checkpointEvery, long retentionMs, io.sluice.core.head.chunkfiles.ChunkFileWriter.ChunkOrder order)
            throws Exception {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withQueue(4, 64 * 1024).withChunkFileBytes(64 << 10).withCheckpointIntervalMs(0)
                    .withRetentionMs(retentionMs), order);
            int stream = f.streams.idOf("m", 0);
            byte[][] canon = new byte[SERIES][];
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "x", "s", Integer.toString(s));
            }
            AtomicBoolean done = new AtomicBoolean();
            AtomicBoolean verified = new AtomicBoolean();
            AtomicBoolean drained = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread worker = Thread.ofPlatform().name("shard-0").start(() -> {
                while (!done.get() || shard.queueDepth() > 0) {
                    if (shard.doWork() == 0) {
                        Thread.onSpinWait();
                    }
                }
                shard.doWork();
                drained.set(true);
                while (!verified.get()) {
                    Thread.onSpinWait();
                }
                try {
                    shard.close(); // on the shard thread, which owns the chunk memory
                } catch (IOException | RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            });
            AtomicLong snapshots = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(Thread.ofPlatform().name("reader-" + r).start(() -> {
                    SeriesSnapshot snapshot = new SeriesSnapshot();
                    try {
                        while (!done.get()) {
                            for (int id = 0; id < shard.seriesCount(); id++) {
                                shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
                                int series = Integer.parseInt(snapshot.labels().get("s"));
                                checkSeries(snapshot, series, retentionMs > 0);
                                snapshots.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            // The producer: every round, every series gets one sample (series appear progressively).
            for (int round = 0; round < ROUNDS && failure.get() == null; round++) {
                ShardBatch batch;
                while ((batch = shard.acquireBatch()) == null) {
                    Thread.onSpinWait();
                }
                batch.record(stream, round);
                long t = (round + 1) * 1000L;
                int visible = Math.min(SERIES, 10 + round);
                for (int s = 0; s < visible; s++) {
                    batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length);
                    batch.sample(t, valueBits(s, t));
                }
                shard.submit(batch);
                if (checkpointEvery > 0 && round % checkpointEvery == checkpointEvery - 1) {
                    shard.requestCheckpoint();
                }
            }
            done.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
            while (!drained.get()) {
                Thread.onSpinWait();
            }
            try {
                if (failure.get() != null) {
                    throw new AssertionError("reader failed", failure.get());
                }
                assertThat(snapshots.get()).as("the readers really ran alongside").isGreaterThan(SERIES);

                // Finally every sample is visible (inside the retention).
                SeriesSnapshot snapshot = new SeriesSnapshot();
                for (int id = 0; id < shard.seriesCount(); id++) {
                    shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
                    int series = Integer.parseInt(snapshot.labels().get("s"));
                    long count = checkSeries(snapshot, series, retentionMs > 0);
                    long firstRound = Math.max(0, series - 9);
                    if (retentionMs == 0) {
                        assertThat(count).as("series %d", series).isEqualTo(ROUNDS - firstRound);
                    } else {
                        assertThat(count).as("series %d: every sample inside the retention", series)
                                .isGreaterThanOrEqualTo(retentionMs / 1000).isLessThan(ROUNDS - firstRound);
                    }
                }
                assertThat(shard.stats().get(ShardStats.Counter.CHUNKS_EXPIRED) > 0).isEqualTo(retentionMs > 0);
            } finally {
                verified.set(true);
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("shard close failed", failure.get());
            }
        }
    }

    /** Checks one snapshot; returns its sample count. With retention, the first sample may come later. */
    private static long checkSeries(SeriesSnapshot snapshot, int series, boolean retention) {
        long count = 0;
        long previous = Math.max(0, series - 9) * 1000L; // series s first appears in round s - 9
        for (SeriesSnapshot.Samples it = snapshot.samples(); it.next(); ) {
            long t = it.timestampMs();
            if (count == 0 && retention && t > previous) {
                previous = t - 1000;
            }
            if (t != previous + 1000) {
                throw new AssertionError("series " + series + ": sample at " + t + " after " + previous + " (gap or disorder)");
            }
            if (it.valueBits() != valueBits(series, t)) {
                throw new AssertionError("series " + series + " at " + t + ": foreign value " + it.value());
            }
            previous = t;
            count++;
        }
        if (snapshot.samples().hasCorruptChunk()) {
            throw new AssertionError("series " + series + ": corrupt chunk");
        }
        return count;
    }
}
