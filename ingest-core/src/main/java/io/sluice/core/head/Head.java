package io.sluice.core.head;

import io.sluice.core.head.checkpoint.RestoreReport;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.read.LabelOrder;
import io.sluice.core.head.replay.ReplayListener;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardRunner;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

/**
 * The head: S shards, each on its own thread, and the routing and reading across them.
 *
 * <p>Producers (consumer threads) route a series with {@link #shardOf(long)} and fill that shard's
 * batches ({@link Shard#acquireBatch()}, {@link Shard#submit}); readers query all shards with
 * {@link #query}. Exactly-once bookkeeping: {@link #durableWatermark(int)} is the minimum over the
 * shards, the offset up to which every shard holds a stream's samples durably.
 */
public final class Head implements AutoCloseable {
    private final HeadOptions options;
    private final StreamRegistry streams;
    private final MemoryAccounting accounting;
    private final Shard[] shards;
    private final ShardRunner[] runners;
    private final LabelOrder labelOrder;

    public Head(HeadOptions options, StreamRegistry streams, MemoryAccounting accounting) {
        this.options = options;
        this.streams = streams;
        this.accounting = accounting;
        this.shards = new Shard[options.shards()];
        this.runners = new ShardRunner[options.shards()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new Shard(i, options.shard(i), streams, accounting, System::nanoTime);
        }
        this.labelOrder = new LabelOrder(shards);
        for (int i = 0; i < shards.length; i++) {
            shards[i].chunkOrder(labelOrder.chunkOrder(i));
        }
    }

    /** Tells {@code listener} of every record each shard replays, on the shard's thread. Call before {@link #start()}. */
    public void replayListener(ReplayListener listener) {
        for (Shard shard : shards) {
            shard.replayListener(listener);
        }
    }

    /** WAL bytes the shards replay (or replayed) at start, summed; 0 before they began. Any thread. */
    public long replayTotalBytes() {
        long n = 0;
        for (Shard shard : shards) {
            n += shard.replayProgress().totalBytes();
        }
        return n;
    }

    /** WAL bytes the shards have replayed so far, summed. Any thread. */
    public long replayedBytes() {
        long n = 0;
        for (Shard shard : shards) {
            n += shard.replayProgress().replayedBytes();
        }
        return n;
    }

    /** True once every shard finished replaying its WAL (it may have stopped since; see {@link #isReady()}). Any thread. */
    public boolean isReplayDone() {
        for (Shard shard : shards) {
            if (!shard.replayProgress().isDone()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts every shard's thread; they load their checkpoints and replay their WALs in parallel.
     * Returns when all are replayed. If the data directory holds shards of another count, their data
     * is first moved to this count ({@link Reshard}, on the calling thread).
     */
    public void start() throws IOException {
        if (Reshard.needed(options)) {
            Reshard.run(options, streams, accounting);
        }
        CountDownLatch started = new CountDownLatch(shards.length);
        for (int i = 0; i < shards.length; i++) {
            runners[i] = new ShardRunner(shards[i], started);
            runners[i].startThread();
        }
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the shards replayed their WALs", e);
        }
        for (ShardRunner runner : runners) {
            if (runner.failure() != null) {
                close();
                throw new IOException("a shard failed to start: " + runner.failure().getMessage(), runner.failure());
            }
        }
        setRefillTargets();
    }

    public HeadOptions options() {
        return options;
    }

    public StreamRegistry streams() {
        return streams;
    }

    public MemoryAccounting accounting() {
        return accounting;
    }

    public int shardCount() {
        return shards.length;
    }

    public Shard shard(int index) {
        return shards[index];
    }

    /**
     * The shard of a series: the high 32 bits of its hash scaled to the shard count (a multiply,
     * not a modulo, so every shard count spreads evenly).
     */
    public int shardOf(long seriesHash) {
        return (int) (((seriesHash >>> 32) * shards.length) >>> 32);
    }

    /** True when every shard replayed its WAL and none has stopped. */
    public boolean isReady() {
        for (int i = 0; i < shards.length; i++) {
            if (!shards[i].isReplayed() || runners[i] == null || !runners[i].isAlive()) {
                return false;
            }
        }
        return true;
    }

    /** The offset of {@code streamId} up to which every shard holds its samples durably, or -1. Any thread. */
    public long durableWatermark(int streamId) {
        long min = Long.MAX_VALUE;
        for (Shard shard : shards) {
            min = Math.min(min, shard.durableWatermark(streamId));
        }
        return min;
    }

    /**
     * True while a shard that found its persisted data damaged beyond what its WAL and checkpoints
     * can rebuild (it started empty, see {@link RestoreReport#discardedData()}) has not caught up
     * again: the Kafka layer must then consume each partition from {@code durableWatermark + 1} (the
     * earliest offset when that is 0), even below the committed offset. Survives restarts until the
     * shard reaches what the other shards held. Any thread, after {@link #start()}.
     */
    public boolean discardedData() {
        for (Shard shard : shards) {
            if (shard.isRefilling()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Tells each refilling shard what to reach: per stream, the highest durable watermark of the other
     * shards (the committed offset, min over shards + 1, cannot be above it + 1). With one shard there
     * is no such bound and the refill state stays (consuming from the shard's own watermark is always
     * exactly-once for this instance).
     */
    private void setRefillTargets() {
        for (int i = 0; i < shards.length; i++) {
            if (!shards[i].isRefilling() || shards.length == 1) {
                continue;
            }
            long[] target = new long[streams.size()];
            java.util.Arrays.fill(target, -1L);
            for (int j = 0; j < shards.length; j++) {
                for (int s = 0; j != i && s < target.length; s++) {
                    target[s] = Math.max(target[s], shards[j].durableWatermark(s));
                }
            }
            shards[i].refillUntil(target);
        }
    }

    /**
     * Asks every shard to checkpoint at its next loop turn and waits until each tried (or
     * {@code timeoutMs} passed). Returns whether every shard wrote one. Any thread but a shard's.
     */
    public boolean checkpoint(long timeoutMs) throws InterruptedException {
        long[] before = new long[shards.length];
        long failuresBefore = 0;
        for (int i = 0; i < shards.length; i++) {
            before[i] = written(i);
            failuresBefore += shards[i].stats().get(ShardStats.Counter.CHECKPOINT_FAILURES);
            shards[i].requestCheckpoint();
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        for (int i = 0; i < shards.length; i++) {
            while (written(i) == before[i]) {
                if (System.nanoTime() > deadline || runners[i] == null || !runners[i].isAlive()) {
                    return false;
                }
                Thread.sleep(1); // a checkpoint takes milliseconds to seconds; no busy wait
            }
        }
        long failures = 0;
        for (Shard shard : shards) {
            failures += shard.stats().get(ShardStats.Counter.CHECKPOINT_FAILURES);
        }
        return failures == failuresBefore;
    }

    private long written(int shard) {
        return shards[shard].checkpointRounds();
    }

    /** Asks every shard to sync its WAL at its next loop turn (revocation, shutdown). Any thread. */
    public void requestSync() {
        for (Shard shard : shards) {
            shard.requestSync();
        }
    }

    /** Series matching {@code matchers} with samples in [minTimeMs, maxTimeMs], sorted by labels. Any thread. */
    public HeadQuery query(long minTimeMs, long maxTimeMs, Matcher... matchers) {
        return HeadQuery.run(shards, labelOrder, minTimeMs, maxTimeMs, null, matchers);
    }

    /**
     * Makes the head's label order over every series it holds now, on the calling thread (else it
     * is made on a background thread once queries, or after the first query chunk writes, meet
     * enough series it does not cover), and has the chunk writes keep it up as after a query. For a
     * benchmark that fills a head faster than that thread sorts. Any thread.
     */
    public void makeLabelOrder() {
        labelOrder.makeNow();
    }

    /**
     * {@link #query}, each series' canonical labels replaced by {@code relabel}'s (e.g. with external
     * labels added), sorted by those and read as those. Any thread; {@code relabel} runs on the caller's.
     */
    public HeadQuery query(long minTimeMs, long maxTimeMs, UnaryOperator<byte[]> relabel, Matcher... matchers) {
        return HeadQuery.run(shards, labelOrder, minTimeMs, maxTimeMs, relabel, matchers);
    }

    /**
     * The first and last sample time over all shards as {@code {min, max}}, or null while no series
     * has a sample (what a Thanos Querier is told, to prune). Any thread; O(series), copies no chunk.
     */
    public long[] timeRange() {
        long[] range = null;
        for (Shard shard : shards) {
            long[] r = shard.timeRange();
            if (r != null) {
                range = range == null ? r : new long[] {Math.min(range[0], r[0]), Math.max(range[1], r[1])};
            }
        }
        return range;
    }

    /**
     * Label names across shards, in no particular order: the APIs sort them as Go compares strings
     * (UTF-8 byte order), which {@link String#compareTo} is not.
     */
    public List<String> labelNames() {
        Set<String> names = new HashSet<>();
        for (Shard shard : shards) {
            names.addAll(shard.labelIndex().labelNames());
        }
        return new ArrayList<>(names);
    }

    /** Values of a label across shards, in no particular order (as {@link #labelNames}). */
    public List<String> labelValues(String name) {
        Set<String> values = new HashSet<>();
        for (Shard shard : shards) {
            values.addAll(shard.labelIndex().labelValues(name));
        }
        return new ArrayList<>(values);
    }

    /** Active series across shards. */
    public long seriesCount() {
        long n = 0;
        for (Shard shard : shards) {
            n += shard.activeSeriesCount();
        }
        return n;
    }

    /**
     * Makes {@link #close()} leave the data directory as start() found it plus the WAL written since
     * (no checkpoint, so no WAL segment is deleted): for timing the same restart repeatedly. Any thread.
     */
    public void skipCheckpointOnClose() {
        for (Shard shard : shards) {
            shard.skipCheckpointOnClose();
        }
    }

    /** Stops every shard after draining its queue; each checkpoints (unless skipped), syncs and closes its WAL. */
    @Override
    public void close() {
        for (ShardRunner runner : runners) {
            if (runner != null) {
                try {
                    runner.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UncheckedIOException(new IOException("interrupted while stopping shards", e));
                }
            }
        }
    }
}
