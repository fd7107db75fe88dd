package io.sluice.server.metrics;

import io.sluice.core.head.Head;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.wal.Wal;

/** Sums over shards, for progress lines and logs (Prometheus users sum the per-shard series). Any thread. */
public final class HeadTotals {
    private HeadTotals() {
    }

    /** {@code counter} summed over every shard. */
    public static long sum(Head head, ShardStats.Counter counter) {
        long total = 0;
        for (int i = 0; i < head.shardCount(); i++) {
            total += head.shard(i).stats().get(counter);
        }
        return total;
    }

    /** WAL bytes written by every shard since start. */
    public static long walBytesWritten(Head head) {
        long total = 0;
        for (int i = 0; i < head.shardCount(); i++) {
            Wal wal = head.shard(i).wal();
            total += wal == null ? 0 : wal.metrics().bytesWritten();
        }
        return total;
    }

    /** Batches waiting over all shards. */
    public static long queueDepth(Head head) {
        long total = 0;
        for (int i = 0; i < head.shardCount(); i++) {
            total += head.shard(i).queueDepth();
        }
        return total;
    }
}
