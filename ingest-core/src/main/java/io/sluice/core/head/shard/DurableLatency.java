package io.sluice.core.head.shard;

import java.util.Arrays;

/**
 * A shard's queue-in times of the batches applied since its last WAL sync; at the sync each one's
 * latency goes to the listener. Costs one clock read per batch at submit and one store per applied
 * batch, nothing per sample; nothing at all is kept while no listener is set.
 *
 * <p>Threads: {@link #listener(BatchLatencyListener)} from any thread (volatile); the rest on the
 * shard thread only. The array grows to the most batches applied between two syncs (a few hundred
 * at 100 ms group commit) and then stays.
 */
final class DurableLatency {
    private volatile BatchLatencyListener listener;
    private long[] queuedNs = new long[64];   // shard thread
    private int count;                         // shard thread

    void listener(BatchLatencyListener l) {
        listener = l;
    }

    /** A batch queued at {@code queuedNs} was applied (its records are in the WAL, not yet synced). */
    void applied(long queuedNanos) {
        if (listener == null) {
            return;
        }
        if (count == queuedNs.length) {
            queuedNs = Arrays.copyOf(queuedNs, count * 2);
        }
        queuedNs[count++] = queuedNanos;
    }

    /** The WAL was synced at {@code nowNs}: every batch applied before is durable. */
    void durable(long nowNanos) {
        BatchLatencyListener l = listener;
        if (l != null) {
            for (int i = 0; i < count; i++) {
                l.batchDurable(nowNanos - queuedNs[i]);
            }
        }
        count = 0;
    }
}
