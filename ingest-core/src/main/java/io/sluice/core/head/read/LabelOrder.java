package io.sluice.core.head.read;

import io.sluice.core.head.chunkfiles.ChunkFileWriter;
import io.sluice.core.head.series.LabelArena;
import io.sluice.core.head.shard.Shard;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every series of a head's shards in label order ({@link HeadQuery#compareCanonical}), kept between
 * queries, so that a query puts its series in order by sorting their ranks (ints) instead of their
 * labels. Series ids only grow and a series' labels never change, so an order once made stays true
 * for the series it covers (ids below each shard's count when it was made); a query sorts the series
 * created since by their labels and merges them in ({@link HeadQuery}). When a query meets many such
 * series and they are a noticeable part of the head, the order is made again on a background thread
 * of its own (a platform thread: the sort must not hold one of the carriers the HTTP workers'
 * virtual threads run on), starting from the previous order (one run, already sorted) plus the new
 * series: a merge, not a full sort. Each comparison copies the two label sets into two reused
 * buffers, so making it holds no copy of every series' labels (its transient memory is ~20 bytes per
 * series). Costs 12 bytes per series (a rank per id and the order itself). Thread-safe: the order is
 * an immutable snapshot behind a volatile field.
 *
 * <p>The chunk files' writes put their chunks in this order too ({@link #chunkOrder}), but they ask
 * for it to be made only once a query has read by it ({@link #forQuery}) or {@link #makeNow} made it: a
 * head nobody queries (a replay, an ingest burst before the first query) makes no order, and its
 * writes keep the order chunks were cut in. Making it, and the first writes that sort by it, cost
 * compiles of their own (sort, label comparison, copy) on a machine whose cores the shards use.
 */
public final class LabelOrder {
    /** A query that had to sort at least this many uncovered series asks for a new order. */
    static final int REBUILD_MIN_UNCOVERED = 64;

    private static final System.Logger LOG = System.getLogger(LabelOrder.class.getName());

    private final Shard[] shards;
    private final AtomicBoolean rebuilding = new AtomicBoolean();
    private volatile Snapshot current;
    private volatile boolean read; // a query has read by the order, or makeNow made it: chunk writes may ask for it

    /**
     * One order: {@code covered[s]} series of shard {@code s} (ids below it), {@code rank[s][id]} the
     * position of series {@code id} of shard {@code s} in {@code order}, whose entries are
     * {@code shard << 32 | id}.
     */
    record Snapshot(int[] covered, int[][] rank, long[] order) {
        /** The rank of series {@code id} of {@code shard}, or -1 if this order does not cover it. */
        int rank(int shard, int id) {
            return id < covered[shard] ? rank[shard][id] : -1;
        }

        int shard(int rank) {
            return (int) (order[rank] >>> 32);
        }

        int id(int rank) {
            return (int) order[rank];
        }
    }

    public LabelOrder(Shard[] shards) {
        this.shards = shards;
        this.current = new Snapshot(new int[shards.length], new int[shards.length][0], new long[0]);
    }

    /**
     * Shard {@code shard}'s chunk files' write order ({@link ChunkFileWriter.ChunkOrder}): each write
     * puts its chunks in this order, so that a query, which reads its series in this order, reads each
     * write's chunks front to back. Once a query has read by the order, a write that meets many series
     * the order does not cover asks for a new order as a query does ({@link #uncoveredMet}), so the
     * order keeps up with new series between queries; before, writes keep the cut order.
     */
    public ChunkFileWriter.ChunkOrder chunkOrder(int shard) {
        return new ChunkFileWriter.ChunkOrder() {
            @Override
            public int rank(int seriesId) {
                return current.rank(shard, seriesId);
            }

            @Override
            public void unranked(int chunks) {
                if (read) {
                    uncoveredMet(current, chunks);
                }
            }
        };
    }

    /** The order as it is now (it may cover fewer series than the shards hold). Any thread. */
    Snapshot current() {
        return current;
    }

    /**
     * {@link #current()} for a query, which reads its series in this order: from now on the chunk
     * writes ask for the order too ({@link #chunkOrder}). Any thread.
     */
    Snapshot forQuery() {
        if (!read) {
            read = true;
        }
        return current;
    }

    /** Whether a new order is being made now (tests: one started is running or done). */
    boolean rebuilding() {
        return rebuilding.get();
    }

    /**
     * Called by a query that sorted {@code uncovered} series by their labels: when they are many and the
     * series the order does not cover are at least an eighth of those it does, starts making a new order
     * on a thread of its own (unless one is being made). Any thread.
     */
    void uncoveredMet(Snapshot seen, int uncovered) {
        if (uncovered < REBUILD_MIN_UNCOVERED || seen != current) {
            return;
        }
        long covered = seen.order.length;
        long missing = 0;
        for (int s = 0; s < shards.length; s++) {
            missing += shards[s].seriesCount() - seen.covered[s];
        }
        if (missing * 8 >= covered && rebuilding.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("sluice-label-order").start(() -> {
                try {
                    rebuild();
                } catch (RuntimeException e) { // e.g. the head closed meanwhile: queries keep the old order
                    LOG.log(System.Logger.Level.WARNING, "the head's label order was not made again: " + e);
                } finally {
                    rebuilding.set(false);
                }
            });
        }
    }

    /**
     * Makes the order over every series the shards hold now, on the calling thread; from now on the
     * chunk writes ask for it as a query's reads do. Any thread.
     */
    public void makeNow() {
        read = true;
        while (!rebuilding.compareAndSet(false, true)) {
            Thread.onSpinWait(); // a background rebuild is running: the next one covers what it does not
        }
        try {
            rebuild();
        } finally {
            rebuilding.set(false);
        }
    }

    /** Makes the order over every series the shards hold now and publishes it. Any thread, one at a time. */
    void rebuild() {
        Snapshot old = current;
        int[] covered = new int[shards.length];
        int total = 0;
        for (int s = 0; s < shards.length; s++) {
            covered[s] = shards[s].seriesCount();
            total += covered[s];
        }
        Long[] all = new Long[total]; // shard << 32 | id; the labels are copied into two buffers per comparison
        int n = 0;
        for (long packed : old.order) { // one sorted run
            all[n++] = packed;
        }
        for (int s = 0; s < shards.length; s++) {
            for (int id = old.covered[s]; id < covered[s]; id++) {
                all[n++] = (long) s << 32 | id;
            }
        }
        byte[] a = new byte[LabelArena.MAX_LABELS_BYTES];
        byte[] b = new byte[LabelArena.MAX_LABELS_BYTES];
        Arrays.sort(all, (x, y) -> HeadQuery.compareCanonical(a, shards[(int) (x >>> 32)].copyLabels(x.intValue(), a),
                b, shards[(int) (y >>> 32)].copyLabels(y.intValue(), b)));
        // TimSort: the old run is found as is, the new series merged in
        long[] order = new long[total];
        int[][] rank = new int[shards.length][];
        for (int s = 0; s < shards.length; s++) {
            rank[s] = new int[covered[s]];
        }
        for (int r = 0; r < total; r++) {
            long packed = all[r];
            order[r] = packed;
            rank[(int) (packed >>> 32)][(int) packed] = r;
        }
        current = new Snapshot(covered, rank, order);
    }
}
