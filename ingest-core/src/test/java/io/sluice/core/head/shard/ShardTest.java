package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.core.memory.MemoryTag;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardTest {
    private static final long STALE = 0x7ff0000000000002L;
    @TempDir
    Path dir;

    /**
     * The expected content: Prometheus' append rules with the out-of-order window (the default): a sample
     * at a stored timestamp is a duplicate (same bits) or a duplicate timestamp; an older one is stored if
     * inside the window of the shard's newest sample, else too old.
     */
    private static final class Model {
        final Map<String, java.util.TreeMap<Long, Long>> stored = new LinkedHashMap<>();
        final Map<Counter, Long> counts = new HashMap<>();
        long shardNewest = Long.MIN_VALUE;

        void offer(String series, long t, long bits) {
            java.util.TreeMap<Long, Long> samples = stored.computeIfAbsent(series, s -> new java.util.TreeMap<>());
            Long existing = samples.get(t);
            if (existing != null) {
                counts.merge(existing == bits ? Counter.SAMPLES_DUPLICATE : Counter.SAMPLES_DUPLICATE_TIMESTAMP, 1L, Long::sum);
            } else if (samples.isEmpty() || t > samples.lastKey()) {
                samples.put(t, bits);
                shardNewest = Math.max(shardNewest, t);
                counts.merge(Counter.SAMPLES_APPENDED, 1L, Long::sum);
            } else if (t < shardNewest - ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS) {
                counts.merge(Counter.SAMPLES_TOO_OLD, 1L, Long::sum);
            } else {
                samples.put(t, bits);
                counts.merge(Counter.SAMPLES_APPENDED, 1L, Long::sum);
                counts.merge(Counter.SAMPLES_OUT_OF_ORDER, 1L, Long::sum);
            }
        }

        long[] last(String series) {
            java.util.TreeMap<Long, Long> samples = stored.get(series);
            if (samples == null || samples.isEmpty()) {
                return null;
            }
            return new long[] {samples.lastKey(), samples.lastEntry().getValue()};
        }
    }

    private static long randomValue(SplittableRandom random) {
        return switch (random.nextInt(10)) {
            case 0 -> STALE;
            case 1 -> random.nextLong();                                  // any bits, NaN payloads included
            case 2 -> Double.doubleToRawLongBits(-0.0);
            case 3 -> Double.doubleToRawLongBits(random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
            default -> Double.doubleToRawLongBits(Math.round(random.nextDouble(0, 1000) * 100) / 100.0);
        };
    }

    @Test
    void appliesPrometheusAppendRulesAndReadsBackExactly() throws IOException {
        long seed = 1234;
        SplittableRandom random = new SplittableRandom(seed);
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open();
            int stream = f.streams.idOf("metrics", 3);
            Model model = new Model();
            int seriesCount = 300;
            byte[][] canon = new byte[seriesCount][];
            String[] names = new String[seriesCount];
            long[] nextT = new long[seriesCount];
            for (int s = 0; s < seriesCount; s++) {
                canon[s] = f.canonical("__name__", "m" + s % 7, "instance", "host-" + s, "job", "node");
                names[s] = new io.sluice.core.labels.LabelsView().wrap(canon[s], 0, canon[s].length).toString();
                nextT[s] = 1_700_000_000_000L + random.nextInt(100_000);
            }
            long offset = 0;
            for (int b = 0; b < 400; b++) {
                ShardBatch batch = shard.acquireBatch();
                if (batch == null) { // every batch in flight: the producer waits for the shard
                    f.drain();
                    batch = shard.acquireBatch();
                }
                batch.record(stream, offset++);
                for (int e = 0; e < 20; e++) {
                    int s = random.nextInt(seriesCount);
                    assertThat(batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length)).isTrue();
                    for (int k = 1 + random.nextInt(5); k > 0; k--) {
                        long t;
                        long bits = randomValue(random);
                        int kind = random.nextInt(20);
                        long[] last = model.last(names[s]);
                        if (kind == 0 && last != null) {
                            t = last[0];                                // same timestamp
                            bits = random.nextBoolean() ? last[1] : bits;
                        } else if (kind == 1) {
                            t = nextT[s] - 1_000_000;                   // out of order
                        } else {
                            t = nextT[s];
                            nextT[s] += 1 + random.nextInt(kind == 2 ? 9_000_000 : 30_000); // jitter and big gaps
                        }
                        assertThat(batch.sample(t, bits)).isTrue();
                        model.offer(names[s], t, bits);
                    }
                }
                shard.submit(batch);
                if (random.nextInt(4) == 0) {
                    f.drain();
                }
            }
            f.drain();
            assertReads(f, model, seed);
            for (Counter c : List.of(Counter.SAMPLES_APPENDED, Counter.SAMPLES_TOO_OLD, Counter.SAMPLES_OUT_OF_ORDER,
                    Counter.SAMPLES_DUPLICATE, Counter.SAMPLES_DUPLICATE_TIMESTAMP)) {
                assertThat(shard.stats().get(c)).as("seed %d %s", seed, c).isEqualTo(model.counts.getOrDefault(c, 0L));
            }

            assertThat(model.counts.get(Counter.SAMPLES_OUT_OF_ORDER)).as("late samples stored").isPositive();
            assertThat(model.counts.get(Counter.SAMPLES_TOO_OLD)).as("late samples rejected").isPositive();

            // Restart: the WAL brings back every sample and the watermark, nothing else.
            shard.sync();
            assertThat(shard.durableWatermark(stream)).isEqualTo(offset - 1);
            shard.close();
            f.shard = null;
            Shard reopened = f.open();
            assertThat(reopened.stats().get(Counter.REPLAY_MALFORMED_RECORDS)).isZero();
            assertThat(reopened.durableWatermark(stream)).isEqualTo(offset - 1);
            assertReads(f, model, seed);

            // A re-delivered record (as after a crash before the commit) is skipped, not applied twice.
            ShardBatch again = reopened.acquireBatch();
            again.record(stream, offset - 1);
            again.series(f.hash(canon[0]), canon[0], 0, canon[0].length);
            again.sample(nextT[0] + 1_000, Double.doubleToRawLongBits(1.0));
            reopened.submit(again);
            f.drain();
            assertThat(reopened.stats().get(Counter.SAMPLES_ALREADY_APPLIED)).isEqualTo(1);
            assertReads(f, model, seed);
        }
    }

    private static void assertReads(ShardFixture f, Model model, long seed) {
        Map<String, List<long[]>> actual = f.readAll(Long.MIN_VALUE, Long.MAX_VALUE);
        Map<String, List<long[]>> expected = new LinkedHashMap<>();
        model.stored.forEach((k, v) -> {
            if (!v.isEmpty()) {
                List<long[]> samples = new ArrayList<>();
                v.forEach((t, bits) -> samples.add(new long[] {t, bits}));
                expected.put(k, samples);
            }
        });
        assertThat(actual.keySet()).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(expected.keySet());
        expected.forEach((series, samples) -> assertThat(actual.get(series))
                .as("seed %d series %s", seed, series).containsExactlyElementsOf(samples));
    }

    @Test
    void rangeSelectionReturnsOnlySamplesInside() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open();
            int stream = f.streams.idOf("t", 0);
            byte[] c = f.canonical("__name__", "up");
            for (int b = 0; b < 10; b++) {
                ShardBatch batch = shard.acquireBatch();
                batch.record(stream, b);
                batch.series(f.hash(c), c, 0, c.length);
                for (int i = 0; i < 100; i++) {
                    batch.sample((b * 100L + i) * 15_000, Double.doubleToRawLongBits(i));
                }
                shard.submit(batch);
                f.drain();
            }
            assertThat(f.readAll(Long.MIN_VALUE, Long.MAX_VALUE).values().iterator().next()).hasSize(1_000);
            List<long[]> narrow = f.readAll(150_000, 299_999).values().iterator().next();
            assertThat(narrow).extracting(s -> s[0]).containsExactly(150_000L, 165_000L, 180_000L, 195_000L, 210_000L,
                    225_000L, 240_000L, 255_000L, 270_000L, 285_000L);
            // Across chunk boundaries (120 samples a chunk): 67th..600th sample inclusive.
            List<long[]> wide = f.readAll(1_000_000, 9_000_000).values().iterator().next();
            assertThat(wide).hasSize(534);
            assertThat(wide.getFirst()[0]).isEqualTo(1_005_000L);
            assertThat(wide.getLast()[0]).isEqualTo(9_000_000L);
            assertThat(f.readAll(20_000_000, 30_000_000).values().iterator().next()).isEmpty();
        }
    }

    @Test
    void forcedHashCollisionsStayTwoSeries() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open();
            int stream = f.streams.idOf("t", 0);
            byte[] a = f.canonical("__name__", "a");
            byte[] b = f.canonical("__name__", "b");
            ShardBatch batch = shard.acquireBatch();
            batch.record(stream, 0);
            batch.series(42L, a, 0, a.length);   // the same (wrong) hash for both, as a collision would give
            batch.sample(1000, Double.doubleToRawLongBits(1));
            batch.series(42L, b, 0, b.length);
            batch.sample(1000, Double.doubleToRawLongBits(2));
            shard.submit(batch);
            f.drain();
            assertThat(shard.seriesCount()).isEqualTo(2);
            Map<String, List<long[]>> all = f.readAll(0, 5000);
            assertThat(all).hasSize(2);
            assertThat(all.get("{__name__=\"a\"}").getFirst()[1]).isEqualTo(Double.doubleToRawLongBits(1));
            assertThat(all.get("{__name__=\"b\"}").getFirst()[1]).isEqualTo(Double.doubleToRawLongBits(2));
        }
    }

    @Test
    void fullPoolIsBackpressureNotBlocking() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withQueue(2, 4096));
            ShardBatch one = shard.acquireBatch();
            ShardBatch two = shard.acquireBatch();
            assertThat(one).isNotNull();
            assertThat(two).isNotNull();
            assertThat(shard.acquireBatch()).as("every batch in flight").isNull();
            shard.submit(one);
            shard.release(two);
            f.drain();
            assertThat(shard.acquireBatch()).isNotNull();
        }
    }

    @Test
    void batchesAreCreatedOnDemandAndReused() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            int batchBytes = 8 << 20;
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            Shard shard = f.open(f.options().withQueue(8, batchBytes));
            long openBytes = threads.getCurrentThreadAllocatedBytes() - before;
            // Eight 8 MiB batches created up front would be 64 MiB of heap before any ingest (or a replay-only restart).
            assertThat(openBytes).as("heap allocated by opening the shard").isLessThan(batchBytes);

            ShardBatch first = shard.acquireBatch();
            assertThat(first).isNotNull();
            shard.release(first);
            assertThat(shard.acquireBatch()).as("a released batch is reused, not a new one made").isSameAs(first);
            List<ShardBatch> inFlight = new ArrayList<>(List.of(first));
            for (ShardBatch b; (b = shard.acquireBatch()) != null; ) {
                assertThat(inFlight).as("every batch is handed out once").doesNotContain(b);
                inFlight.add(b);
            }
            assertThat(inFlight).as("at most as many batches as the queue holds").hasSize(8);
        }
    }

    @Test
    void seriesLimitRejectsAndCounts() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(f.options().withMaxSeries(2));
            int stream = f.streams.idOf("t", 0);
            ShardBatch batch = shard.acquireBatch();
            batch.record(stream, 0);
            for (int i = 0; i < 3; i++) {
                byte[] c = f.canonical("__name__", "s" + i);
                batch.series(f.hash(c), c, 0, c.length);
                batch.sample(1, 0);
                batch.sample(2, 0);
            }
            shard.submit(batch);
            f.drain();
            assertThat(shard.seriesCount()).isEqualTo(2);
            assertThat(shard.stats().get(Counter.SERIES_REJECTED_LIMIT)).isEqualTo(1);
            assertThat(shard.stats().get(Counter.SAMPLES_SERIES_LIMIT)).isEqualTo(2);
        }
    }

    @Test
    void offHeapAccountingReturnsToZeroAfterClose() throws IOException {
        ShardFixture f = new ShardFixture(dir);
        Shard shard = f.open();
        int stream = f.streams.idOf("t", 0);
        for (int b = 0; b < 50; b++) {
            ShardBatch batch = shard.acquireBatch();
            batch.record(stream, b);
            for (int s = 0; s < 50; s++) {
                byte[] c = f.canonical("__name__", "m", "s", Integer.toString(s));
                batch.series(f.hash(c), c, 0, c.length);
                for (int i = 0; i < 20; i++) {
                    batch.sample((b * 20L + i) * 1000, Double.doubleToRawLongBits(b * i));
                }
            }
            shard.submit(batch);
            f.drain();
        }
        assertThat(f.accounting.bytes(MemoryTag.CHUNKS)).isPositive();
        assertThat(f.accounting.bytes(MemoryTag.SERIES)).isPositive();
        f.close();
        for (MemoryTag tag : MemoryTag.values()) {
            assertThat(f.accounting.bytes(tag)).as(tag.name()).isZero();
        }
    }

    @Test
    void aRecordSplitAcrossBatchesIsAppliedWholeAndItsWatermarkWaitsForTheEnd() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open();
            int stream = f.streams.idOf("big", 0);
            byte[] a = f.canonical("__name__", "a");
            byte[] b = f.canonical("__name__", "b");
            submitFirstHalfOfRecord7(f, shard, stream, a);
            f.drain();
            shard.sync();
            assertThat(shard.durableWatermark(stream)).as("record 7 is not complete yet").isEqualTo(6);

            ShardBatch second = shard.acquireBatch();
            second.record(stream, 7);                           // the context is repeated
            second.series(f.hash(b), b, 0, b.length);
            second.sample(1_000, Double.doubleToRawLongBits(2));
            shard.submit(second);
            f.drain();
            shard.sync();
            assertThat(shard.durableWatermark(stream)).isEqualTo(7);
            assertThat(f.readAll(0, 5_000)).containsOnlyKeys("{__name__=\"a\"}", "{__name__=\"b\"}");
            assertThat(shard.stats().get(Counter.SAMPLES_ALREADY_APPLIED)).isZero();
        }
    }

    @Test
    void aCrashInsideASplitRecordRedeliversItWithoutLossOrDuplicates() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open();
            int stream = f.streams.idOf("big", 0);
            byte[] a = f.canonical("__name__", "a");
            byte[] b = f.canonical("__name__", "b");
            submitFirstHalfOfRecord7(f, shard, stream, a);
            f.drain();
            shard.close();                                      // stops before the record's second half
            f.shard = null;

            Shard reopened = f.open();
            assertThat(reopened.durableWatermark(stream)).as("Kafka re-delivers record 7").isEqualTo(6);
            ShardBatch again = reopened.acquireBatch();         // the whole record, re-delivered
            again.record(stream, 7);
            again.series(f.hash(a), a, 0, a.length);
            again.sample(1_000, Double.doubleToRawLongBits(1));
            again.series(f.hash(b), b, 0, b.length);
            again.sample(1_000, Double.doubleToRawLongBits(2));
            reopened.submit(again);
            f.drain();
            Map<String, List<long[]>> all = f.readAll(0, 5_000);
            assertThat(all.get("{__name__=\"a\"}")).hasSize(1);
            assertThat(all.get("{__name__=\"b\"}")).hasSize(1);
            assertThat(reopened.stats().get(Counter.SAMPLES_DUPLICATE)).as("the first half, ignored").isEqualTo(1);
        }
    }

    /** Record 7's first part: series {@code a} with one sample, handed over mid-record. */
    private static void submitFirstHalfOfRecord7(ShardFixture f, Shard shard, int stream, byte[] a) {
        ShardBatch first = shard.acquireBatch();
        first.record(stream, 7);
        first.series(f.hash(a), a, 0, a.length);
        first.sample(1_000, Double.doubleToRawLongBits(1));
        first.recordContinues(stream, 7);
        shard.submit(first);
    }
}
