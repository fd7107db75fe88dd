package io.sluice.server;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Feeds a real head the way the consumers do (one batch per shard per Kafka record, RECORD context,
 * a watermark to every shard), for tests of what reads the head: metrics, HTTP, wal inspect.
 */
public final class TestHeads {
    private TestHeads() {
    }

    /** Small, test-sized head options: {@code shards} shards, 1 MiB WAL segments. */
    public static HeadOptions options(Path dataDir, int shards) {
        return HeadOptions.defaults(dataDir).withShards(shards).withPerShard(s -> s.withWalSegmentBytes(1 << 20));
    }

    /**
     * Submits Kafka record {@code offset} of {@code topic}/{@code partition}: one sample at
     * {@code timestampMs} for each of {@code series} node-exporter-like series.
     */
    public static void feed(Head head, String topic, int partition, long offset, int series, long timestampMs) {
        int stream = head.streams().idOf(topic, partition);
        LabelsBuilder labels = new LabelsBuilder(LabelLimits.DEFAULT);
        ShardBatch[] open = new ShardBatch[head.shardCount()];
        for (int s = 0; s < series; s++) {
            labels.reset().add("__name__", "node_cpu_seconds_total").add("cpu", Integer.toString(s))
                    .add("instance", "host-" + (s % 7)).add("job", "node");
            if (labels.build() != LabelsStatus.OK) {
                throw new IllegalStateException("test labels rejected");
            }
            int shard = head.shardOf(labels.hash());
            if (open[shard] == null) {
                open[shard] = acquire(head.shard(shard));
                open[shard].record(stream, offset);
            }
            if (!open[shard].series(labels.hash(), labels.bytes(), 0, labels.length())
                    || !open[shard].sample(timestampMs, Double.doubleToRawLongBits(s + timestampMs / 1000.0))) {
                throw new IllegalStateException("test batch full");
            }
        }
        for (int i = 0; i < open.length; i++) {
            if (open[i] == null) {
                open[i] = acquire(head.shard(i));
            }
            open[i].watermark(stream, offset);
            head.shard(i).submit(open[i]);
        }
    }

    /** Waits until every shard holds {@code offset} of the stream durably. */
    public static void awaitDurable(Head head, String topic, int partition, long offset) {
        int stream = head.streams().idOf(topic, partition);
        await(() -> {
            head.requestSync();
            return head.durableWatermark(stream) >= offset;
        }, "durable watermark of " + topic + "/" + partition + " to reach " + offset);
    }

    /** Polls {@code condition} every millisecond until true; fails after 60 s (a deadline, not a timing assertion). */
    public static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static ShardBatch acquire(Shard shard) {
        ShardBatch[] batch = new ShardBatch[1];
        await(() -> (batch[0] = shard.acquireBatch()) != null, "a free batch of shard " + shard.index());
        return batch[0];
    }
}
