package io.sluice.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.sluice.core.head.Head;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import io.sluice.wal.Wal;
import io.sluice.wal.WalMetrics;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Exports the head: every shard's counters, gauges and WAL figures, tagged {@code shard="i"} (sum
 * them in PromQL; {@link HeadTotals} sums them in-process), the samples the head rejected summed over
 * shards by reason (see {@link ShardCounterMeters}), and off-heap bytes by purpose.
 *
 * <p>Every meter is a function over a counter another thread publishes (ShardStats, WalMetrics,
 * MemoryAccounting; all safe to read from any thread): a scrape reads, it never touches shard
 * internals and never waits for a shard. Function counters hold their shard weakly (Micrometer's
 * rule), so the head must outlive the registry's use: the server owns both and closes them together.
 */
public final class HeadMetrics implements MeterBinder {
    private final Head head;

    public HeadMetrics(Head head) {
        this.head = head;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (int i = 0; i < head.shardCount(); i++) {
            Shard shard = head.shard(i);
            Tags tags = Tags.of("shard", Integer.toString(i));
            bindCounters(registry, shard, tags);
            bindGauges(registry, shard, tags);
            bindWal(registry, shard, tags);
        }
        bindSummedCounters(registry);
        BatchLatencyMetrics.bind(head, registry, BatchLatencyMetrics.DEFAULT_WINDOW);
        MemoryAccounting accounting = head.accounting();
        for (MemoryTag tag : MemoryTag.values()) {
            Gauge.builder("sluice.offheap", accounting, a -> a.bytes(tag)).strongReference(true)
                    .tags("tag", tag.name().toLowerCase(Locale.ROOT)).baseUnit("bytes")
                    .description("Off-heap bytes the head holds, by purpose").register(registry);
        }
    }

    private static void bindCounters(MeterRegistry registry, Shard shard, Tags tags) {
        ShardStats stats = shard.stats();
        for (Map.Entry<ShardStats.Counter, ShardCounterMeters.Meter> e : ShardCounterMeters.METERS.entrySet()) {
            ShardStats.Counter counter = e.getKey();
            ShardCounterMeters.Meter meter = e.getValue();
            if (!meter.perShard()) {
                continue;
            }
            FunctionCounter.builder(meter.name(), stats, s -> s.get(counter))
                    .tags(tags.and(meter.tags())).description(meter.description()).register(registry);
        }
    }

    private void bindSummedCounters(MeterRegistry registry) {
        for (Map.Entry<ShardStats.Counter, ShardCounterMeters.Meter> e : ShardCounterMeters.METERS.entrySet()) {
            ShardStats.Counter counter = e.getKey();
            ShardCounterMeters.Meter meter = e.getValue();
            if (meter.perShard()) {
                continue;
            }
            FunctionCounter.builder(meter.name(), head, h -> HeadTotals.sum(h, counter))
                    .tags(meter.tags()).description(meter.description()).register(registry);
        }
    }

    private static void bindGauges(MeterRegistry registry, Shard shard, Tags tags) {
        gauge(registry, "sluice.series.active", shard, Shard::activeSeriesCount, tags, null, "Series in the head (idle ones dropped are not)");
        gauge(registry, "sluice.queue.depth", shard, Shard::queueDepth, tags, null,
                "Batches waiting for the shard; at queue.batches the consumers pause its partitions");
        gauge(registry, "sluice.replay.done", shard, s -> s.isReplayed() ? 1 : 0, tags, null,
                "1 once the shard has replayed its WAL");
        gauge(registry, "sluice.wal.error", shard, s -> s.walError() == null ? 0 : 1, tags, null,
                "1 while the shard cannot write its WAL (ingestion held, e.g. disk full)");
        gauge(registry, "sluice.chunk", shard, Shard::chunkBytesInUse, tags, "bytes", "Chunk bytes in use");
        gauge(registry, "sluice.head.out.of.order", shard, Shard::outOfOrderBytes, tags, "bytes",
                "Heap bytes of the out-of-order samples the head holds (dropped with retention and idle series)");
        gauge(registry, "sluice.head.out.of.order.series", shard, Shard::outOfOrderSeriesCount, tags, null,
                "Series holding out-of-order samples");
    }

    private static void bindWal(MeterRegistry registry, Shard shard, Tags tags) {
        // The append stage, next to the consumers' sluice_stage_seconds{stage=fetch|decode|queue_wait} and
        // the fsync stage below: where the time between a poll and a durable sample goes.
        FunctionTimer.builder("sluice.shard.apply", shard.stats(), s -> s.get(ShardStats.Counter.BATCHES_APPLIED),
                        s -> s.get(ShardStats.Counter.APPLY_NANOS), TimeUnit.NANOSECONDS)
                .tags(tags).description("Time shards spent applying batches (series lookup, chunk append, WAL records)")
                .register(registry);
        walCounter(registry, "sluice.wal.bytes.written", shard, WalMetrics::bytesWritten, tags,
                "WAL bytes written, headers and padding included");
        walCounter(registry, "sluice.wal.records", shard, WalMetrics::recordsWritten, tags, "WAL records written");
        walCounter(registry, "sluice.wal.syncs", shard, WalMetrics::syncs, tags, "WAL syncs that forced data to disk");
        walCounter(registry, "sluice.wal.corruptions", shard, WalMetrics::corruptionsFound, tags,
                "WAL damage found (at open and by readers); what was cut is consumed again from Kafka");
        walCounter(registry, "sluice.wal.segment.creations", shard, WalMetrics::segmentsCreated, tags, "WAL segments created");
        walCounter(registry, "sluice.wal.segment.deletions", shard, WalMetrics::segmentsDeleted, tags, "WAL segments deleted");
        FunctionTimer.builder("sluice.wal.fsync", shard, s -> wal(s, WalMetrics::syncs),
                        s -> wal(s, WalMetrics::syncNanosTotal), TimeUnit.NANOSECONDS)
                .tags(tags).description("Time spent forcing the WAL to disk").register(registry);
        TimeGauge.builder("sluice.wal.fsync.max", shard, TimeUnit.NANOSECONDS, s -> wal(s, WalMetrics::syncNanosMax))
                .strongReference(true).tags(tags).description("Longest single WAL sync since start").register(registry);
        gauge(registry, "sluice.wal.mapped", shard, s -> wal(s, WalMetrics::mappedBytes), tags, "bytes",
                "WAL segment bytes mapped into memory");
    }

    private static void walCounter(MeterRegistry registry, String name, Shard shard, ToLongFunction<WalMetrics> value,
                                   Tags tags, String description) {
        FunctionCounter.builder(name, shard, s -> wal(s, value)).tags(tags)
                .description(description).register(registry);
    }

    private static void gauge(MeterRegistry registry, String name, Shard shard, ToDoubleFunction<Shard> value, Tags tags,
                              String baseUnit, String description) {
        Gauge.builder(name, shard, value).strongReference(true).tags(tags).baseUnit(baseUnit)
                .description(description).register(registry);
    }

    /** A WAL figure, 0 before the shard has opened its WAL. */
    private static long wal(Shard shard, ToLongFunction<WalMetrics> value) {
        Wal wal = shard.wal();
        return wal == null ? 0 : value.applyAsLong(wal.metrics());
    }
}
