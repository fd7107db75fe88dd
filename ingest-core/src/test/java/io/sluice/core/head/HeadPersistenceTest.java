package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head's persistence across restarts with real shard threads: a new shard count moves every
 * series to the shard its hash routes to (4 → 2 → 3, every sample kept), and a shard that lost its
 * data to damage is refilled from Kafka, across a restart, until it caught up.
 */
class HeadPersistenceTest {
    private static final int SERIES = 150;
    @TempDir
    Path dir;
    private final LabelsBuilder labels = new LabelsBuilder(LabelLimits.DEFAULT);

    private Head open(int shards, StreamRegistry streams, MemoryAccounting accounting) throws IOException {
        return open(shards, ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS, streams, accounting);
    }

    private Head open(int shards, long outOfOrderWindowMs, StreamRegistry streams, MemoryAccounting accounting) throws IOException {
        Head head = new Head(HeadOptions.defaults(dir).withShards(shards).withPerShard(s -> s.withWalSegmentBytes(64 << 10)
                .withChunkFileBytes(64 << 10).withCheckpointIntervalMs(0).withSeriesIdleTimeoutMs(0)
                .withOutOfOrderWindowMs(outOfOrderWindowMs)), streams, accounting);
        head.start();
        return head;
    }

    /** One sample per series per round (offset = round); every shard learns every offset. */
    private void produce(Head head, int stream, int from, int to) {
        produce(head, stream, from, to, 0);
    }

    /** As {@link #produce(Head, int, int, int)}, each sample {@code shiftMs} later than its round's time. */
    private void produce(Head head, int stream, int from, int to, long shiftMs) {
        for (int round = from; round < to; round++) {
            ShardBatch[] open = new ShardBatch[head.shardCount()];
            for (int i = 0; i < open.length; i++) {
                open[i] = acquire(head.shard(i));
                open[i].record(stream, round);
            }
            for (int s = 0; s < SERIES; s++) {
                labels.reset().add("__name__", "node_load1").add("instance", "host-" + s).add("job", "node");
                assertThat(labels.build()).isEqualTo(LabelsStatus.OK);
                ShardBatch b = open[head.shardOf(labels.hash())];
                b.series(labels.hash(), labels.bytes(), 0, labels.length());
                b.sample(1_700_000_000_000L + round * 15_000L + shiftMs, Double.doubleToRawLongBits(s * 10 + Math.sin(round) * 3));
            }
            for (int i = 0; i < open.length; i++) {
                open[i].watermark(stream, round);
                head.shard(i).submit(open[i]);
            }
        }
    }

    private static ShardBatch acquire(Shard shard) {
        ShardBatch batch;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while ((batch = shard.acquireBatch()) == null) {
            assertThat(System.nanoTime()).as("shard %d never freed a batch", shard.index()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        return batch;
    }

    /** Every series' samples (t:bits ...), by labels. */
    private static Map<String, String> contents(Head head) {
        Map<String, String> out = new TreeMap<>();
        HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.eq("job", "node"));
        while (q.next()) {
            StringBuilder sb = new StringBuilder();
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                sb.append(s.timestampMs()).append(':').append(Long.toHexString(s.valueBits())).append(' ');
            }
            out.put(q.labels().toString(), sb.toString());
        }
        return out;
    }

    private static void assertAllSamples(Map<String, String> contents, int rounds) {
        assertThat(contents).hasSize(SERIES);
        assertThat(contents.values()).allSatisfy(samples -> assertThat(samples.split(" ")).hasSize(rounds));
    }

    private void awaitDurable(Head head, int stream, long offset) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (head.durableWatermark(stream) < offset) {
            assertThat(System.nanoTime()).as("watermark stuck at %d", head.durableWatermark(stream)).isLessThan(deadline);
            head.requestSync();
            Thread.onSpinWait();
        }
    }

    private String[] shardDirectories() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void aShardThatLostItsDataIsRefilledAcrossARestartUntilItCaughtUp() throws IOException, InterruptedException {
        StreamRegistry streams = new StreamRegistry();
        MemoryAccounting accounting = new MemoryAccounting();
        int stream = streams.idOf("metrics", 0);
        Map<String, String> expected;
        try (Head head = open(2, streams, accounting)) {
            produce(head, stream, 0, 300);
            awaitDurable(head, stream, 299);
            assertThat(head.checkpoint(30_000)).isTrue();
            produce(head, stream, 300, 360);
            awaitDurable(head, stream, 359);
            expected = contents(head);
        } // the close checkpoints again: two checkpoints, the WAL before the older one is gone
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(
                dir.resolve("shard-0").resolve("chunks").resolve("00000000").toFile(), "rw")) {
            file.setLength(10_000); // chunks both checkpoints refer to
        }
        try (Head head = open(2, streams, accounting)) {
            assertThat(head.shard(0).restoreReport().discardedData()).isTrue();
            assertThat(head.discardedData()).isTrue();
            assertThat(head.durableWatermark(stream)).as("consume from the earliest offset").isEqualTo(-1);
            assertThat(head.shard(0).activeSeriesCount()).isZero();
            produce(head, stream, 0, 200); // Kafka delivers again; shard 1 skips what it holds
            awaitDurable(head, stream, 199);
            assertThat(head.checkpoint(30_000)).isTrue();
            assertThat(head.discardedData()).as("not caught up yet").isTrue();
            assertThat(head.shard(1).stats().get(io.sluice.core.head.stats.ShardStats.Counter.SAMPLES_ALREADY_APPLIED)).isPositive();
        }
        try (Head head = open(2, streams, accounting)) {
            assertThat(head.discardedData()).as("the refill survives a restart").isTrue();
            assertThat(head.durableWatermark(stream)).as("so Kafka resumes from the refilling shard's watermark").isEqualTo(199);
            produce(head, stream, 200, 360);
            awaitDurable(head, stream, 359);
            assertThat(head.checkpoint(30_000)).isTrue();
            assertThat(head.discardedData()).as("caught up").isFalse();
            assertThat(contents(head)).isEqualTo(expected);
            assertThat(Files.exists(dir.resolve("shard-0").resolve("refill"))).isFalse();
        }
    }

    @Test
    void fourShardsToTwoToThreeKeepEverySampleAndTheLowestWatermark() throws IOException, InterruptedException {
        StreamRegistry streams = new StreamRegistry();
        MemoryAccounting accounting = new MemoryAccounting();
        int stream = streams.idOf("metrics", 0);
        Map<String, String> before;
        try (Head head = open(4, streams, accounting)) {
            produce(head, stream, 0, 300);
            awaitDurable(head, stream, 299);
            assertThat(head.checkpoint(30_000)).isTrue();
            produce(head, stream, 300, 340); // a WAL tail after the checkpoint
            awaitDurable(head, stream, 339);
            before = contents(head);
            assertAllSamples(before, 340);
        }
        // A crash in the middle of moving the old directories aside: the next start carries on.
        Files.createDirectories(dir.resolve("reshard-from.tmp"));
        Files.move(dir.resolve("shard-2"), dir.resolve("reshard-from.tmp").resolve("shard-2"));
        try (Head head = open(2, streams, accounting)) {
            assertThat(shardDirectories()).containsExactly("shard-0", "shard-1");
            assertThat(contents(head)).isEqualTo(before);
            assertThat(head.durableWatermark(stream)).isEqualTo(339);
            assertThat(head.seriesCount()).isEqualTo(SERIES);
            for (int i = 0; i < 2; i++) {
                assertThat(head.shard(i).activeSeriesCount()).as("shard %d gets a share", i).isPositive();
            }
            produce(head, stream, 340, 400);
            awaitDurable(head, stream, 399);
            before = contents(head);
            assertAllSamples(before, 400);
        }
        try (Head head = open(3, streams, accounting)) {
            assertThat(shardDirectories()).containsExactly("shard-0", "shard-1", "shard-2");
            assertThat(contents(head)).isEqualTo(before);
            assertThat(head.durableWatermark(stream)).isEqualTo(399);
            // A record at or below the watermark, delivered again, is skipped: nothing is stored twice.
            produce(head, stream, 399, 400);
            awaitDurable(head, stream, 399);
            assertThat(contents(head)).isEqualTo(before);
        }
        for (MemoryTag tag : MemoryTag.values()) {
            assertThat(accounting.bytes(tag)).as(tag.name()).isZero();
        }
    }

    @Test
    void aReshardKeepsOutOfOrderSamplesOfTheConfiguredWindow() throws IOException, InterruptedException {
        StreamRegistry streams = new StreamRegistry();
        MemoryAccounting accounting = new MemoryAccounting();
        int stream = streams.idOf("metrics", 0);
        long window = 3 * ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS;
        Map<String, String> before;
        try (Head head = open(2, window, streams, accounting)) {
            produce(head, stream, 0, 800); // 800 rounds of 15 s: 3 h 20 min
            // Late samples 2 h behind each series' newest: inside the configured window, outside the default one.
            produce(head, stream, 800, 810, -(800 - 320) * 15_000L + 7_500);
            awaitDurable(head, stream, 809);
            before = contents(head);
            assertThat(before.values()).allSatisfy(samples -> assertThat(samples.split(" ")).hasSize(810));
            head.skipCheckpointOnClose(); // as after a crash: the reshard replays the old shards' WALs
        }
        try (Head head = open(3, window, streams, accounting)) {
            assertThat(shardDirectories()).containsExactly("shard-0", "shard-1", "shard-2");
            assertThat(contents(head)).isEqualTo(before);
        }
    }
}
