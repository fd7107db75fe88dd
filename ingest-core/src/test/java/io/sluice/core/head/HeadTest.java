package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The head with real shard threads: routing by hash, selection across shards, restart. */
class HeadTest {
    @TempDir
    Path dir;
    private final LabelsBuilder labels = new LabelsBuilder(LabelLimits.DEFAULT);

    private Head open(MemoryAccounting accounting, StreamRegistry streams) throws IOException {
        Head head = new Head(HeadOptions.defaults(dir).withShards(3).withPerShard(s -> s.withWalSegmentBytes(1 << 20)), streams, accounting);
        head.start();
        return head;
    }

    /** Produces one sample per series per round, the way a consumer does: one open batch per shard. */
    private void produce(Head head, int stream, int series, int rounds, long firstOffset) {
        ShardBatch[] open = new ShardBatch[head.shardCount()];
        for (int round = 0; round < rounds; round++) {
            long offset = firstOffset + round;
            boolean[] recordMarked = new boolean[open.length];
            for (int s = 0; s < series; s++) {
                labels.reset().add("__name__", s % 2 == 0 ? "node_load1" : "node_memory_free_bytes")
                        .add("instance", "host-" + s).add("job", "node");
                assertThat(labels.build()).isEqualTo(LabelsStatus.OK);
                int shard = head.shardOf(labels.hash());
                if (open[shard] == null) {
                    open[shard] = acquire(head.shard(shard));
                }
                if (!recordMarked[shard]) {
                    open[shard].record(stream, offset);
                    recordMarked[shard] = true;
                }
                open[shard].series(labels.hash(), labels.bytes(), 0, labels.length());
                open[shard].sample(offset * 15_000L, Double.doubleToRawLongBits(s + offset / 100.0));
            }
            for (int i = 0; i < open.length; i++) {
                if (open[i] == null) {
                    open[i] = acquire(head.shard(i));
                }
                open[i].watermark(stream, offset); // every shard learns about every offset
                head.shard(i).submit(open[i]);
                open[i] = null;
            }
        }
    }

    private static ShardBatch acquire(Shard shard) {
        ShardBatch batch;
        while ((batch = shard.acquireBatch()) == null) {
            Thread.onSpinWait();
        }
        return batch;
    }

    private static void awaitDurable(Head head, int stream, long offset) {
        head.requestSync();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (head.durableWatermark(stream) < offset) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("watermark stuck at " + head.durableWatermark(stream) + ", wanted " + offset);
            }
            head.requestSync();
            Thread.onSpinWait();
        }
    }

    private static List<String> query(Head head, Matcher... matchers) {
        List<String> out = new ArrayList<>();
        HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, matchers);
        while (q.next()) {
            int n = 0;
            long last = Long.MIN_VALUE;
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); n++) {
                assertThat(s.timestampMs()).isGreaterThan(last);
                last = s.timestampMs();
            }
            out.add(q.labels() + "#" + n);
        }
        return out;
    }

    @Test
    void routesSelectsAcrossShardsAndSurvivesRestart() throws IOException {
        MemoryAccounting accounting = new MemoryAccounting();
        StreamRegistry streams = new StreamRegistry();
        int stream = streams.idOf("metrics", 0);
        List<String> loads;
        try (Head head = open(accounting, streams)) {
            produce(head, stream, 60, 250, 0);
            awaitDurable(head, stream, 249);
            for (int i = 0; i < head.shardCount(); i++) {
                assertThat(head.shard(i).seriesCount()).as("shard %d gets a share", i).isPositive();
            }
            assertThat(head.seriesCount()).isEqualTo(60);
            loads = query(head, Matcher.eq("__name__", "node_load1"));
            assertThat(loads).hasSize(30).allSatisfy(s -> assertThat(s).endsWith("#250"));
            assertThat(loads).isSortedAccordingTo(String::compareTo); // label order
            assertThat(query(head, Matcher.eq("__name__", "node_load1"), Matcher.re("instance", "host-(1|2)")))
                    .containsExactly("{__name__=\"node_load1\", instance=\"host-2\", job=\"node\"}#250");
            assertThat(query(head, Matcher.eq("job", "node"), Matcher.neq("__name__", "node_load1"))).hasSize(30);
            assertThat(head.labelNames()).containsExactlyInAnyOrder("__name__", "instance", "job");
            assertThat(head.labelValues("__name__")).containsExactlyInAnyOrder("node_load1", "node_memory_free_bytes");
        }
        assertThat(accounting.totalBytes()).as("closing the head frees everything: %s", accounting).isZero();

        try (Head head = open(accounting, streams)) {
            assertThat(head.isReady()).isTrue();
            assertThat(head.durableWatermark(stream)).isEqualTo(249);
            assertThat(query(head, Matcher.eq("__name__", "node_load1"))).isEqualTo(loads);
            produce(head, stream, 60, 10, 250);
            awaitDurable(head, stream, 259);
            assertThat(query(head, Matcher.eq("__name__", "node_load1"))).allSatisfy(s -> assertThat(s).endsWith("#260"));
        }
        for (MemoryTag tag : MemoryTag.values()) {
            assertThat(accounting.bytes(tag)).as(tag.name()).isZero();
        }
    }
}
