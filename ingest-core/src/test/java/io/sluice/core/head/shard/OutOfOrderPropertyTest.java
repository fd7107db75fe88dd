package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.XorIterator;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.core.labels.LabelsView;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The out-of-order window against a model: seeded random interleavings of in-order, late (inside
 * the window), too-old, duplicate and duplicate-timestamp samples over many series, with restarts
 * by WAL replay (a crash after a sync), by checkpoint (a clean close) and checkpoints followed by a
 * replayed tail. After every step the shard holds exactly the model's samples (full and narrow
 * ranges, read merged and time-ordered, remote-read chunks time-ordered and disjoint), and its
 * counters since it opened equal the model's.
 */
class OutOfOrderPropertyTest {
    private static final long WINDOW_MS = 600_000;
    private static final int SERIES = 24;

    @TempDir
    Path dir;

    /** The rules: stored per series in a sorted map; the shard's newest sample; counts since the shard opened. */
    private static final class Model {
        final Map<String, TreeMap<Long, Long>> stored = new HashMap<>();
        final Map<Counter, Long> counts = new EnumMap<>(Counter.class);
        final Map<Counter, Long> totals = new EnumMap<>(Counter.class); // over every restart
        long shardNewest = Long.MIN_VALUE;

        void offer(String series, long t, long bits) {
            TreeMap<Long, Long> samples = stored.computeIfAbsent(series, s -> new TreeMap<>());
            Long existing = samples.get(t);
            if (existing != null) {
                count(existing == bits ? Counter.SAMPLES_DUPLICATE : Counter.SAMPLES_DUPLICATE_TIMESTAMP);
            } else if (samples.isEmpty() || t > samples.lastKey()) {
                samples.put(t, bits);
                shardNewest = Math.max(shardNewest, t);
                count(Counter.SAMPLES_APPENDED);
            } else if (t < shardNewest - WINDOW_MS) {
                count(Counter.SAMPLES_TOO_OLD);
            } else {
                samples.put(t, bits);
                count(Counter.SAMPLES_APPENDED);
                count(Counter.SAMPLES_OUT_OF_ORDER);
            }
        }

        void count(Counter c) {
            counts.merge(c, 1L, Long::sum);
            totals.merge(c, 1L, Long::sum);
        }
    }

    private ShardOptions options() {
        return ShardOptions.defaults(dir.resolve("wal")).withWalSegmentBytes(64 << 10).withChunkFileBytes(64 << 10)
                .withCheckpointIntervalMs(0).withSeriesIdleTimeoutMs(0).withOutOfOrderWindowMs(WINDOW_MS);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void storedEqualsTheModelAcrossReplaysAndCheckpoints(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options());
            int stream = f.streams.idOf("metrics", 0);
            Model model = new Model();
            byte[][] canon = new byte[SERIES][];
            String[] names = new String[SERIES];
            long[] next = new long[SERIES];
            for (int s = 0; s < SERIES; s++) {
                canon[s] = f.canonical("__name__", "m", "instance", "host-" + s);
                names[s] = new LabelsView().wrap(canon[s], 0, canon[s].length).toString();
                next[s] = 1_700_000_000_000L + random.nextInt(60_000);
            }
            long offset = 0;
            int replays = 0;
            int restores = 0;
            for (int step = 0; step < 60; step++) {
                for (int b = 0; b < 10; b++) {
                    ShardBatch batch = shard.acquireBatch();
                    batch.record(stream, offset++);
                    for (int e = 0; e < 8; e++) {
                        int s = random.nextInt(SERIES);
                        assertThat(batch.series(f.hash(canon[s]), canon[s], 0, canon[s].length)).isTrue();
                        for (int k = 1 + random.nextInt(6); k > 0; k--) {
                            long[] sample = nextSample(random, model, names[s], next, s);
                            assertThat(batch.sample(sample[0], sample[1])).isTrue();
                            model.offer(names[s], sample[0], sample[1]);
                        }
                    }
                    shard.submit(batch);
                    f.drain();
                }
                assertStored(f, model, seed, random);
                assertCounts(shard, model, seed);
                switch (random.nextInt(5)) {
                    case 0 -> { // a crash after a WAL sync: replay rebuilds everything after the last checkpoint
                        boolean late = shard.stats().get(Counter.SAMPLES_OUT_OF_ORDER) > 0;
                        shard.closeWithoutCheckpoint();
                        shard = reopen(f, model);
                        replays += late && shard.stats().get(Counter.REPLAYED_SAMPLES) > 0 ? 1 : 0;
                    }
                    case 1 -> { // a clean close: checkpoint, nothing to replay
                        shard.close();
                        shard = reopen(f, model);
                        assertThat(shard.stats().get(Counter.REPLAYED_SAMPLES)).isZero();
                        restores++;
                    }
                    case 2 -> assertThat(shard.checkpoint()).isTrue(); // a checkpoint, and later a tail to replay
                    default -> {
                    }
                }
                if (step % 10 == 9) {
                    assertStored(f, model, seed, random);
                }
            }
            // Every kind of sample came (the generator is not vacuous), and both kinds of restart.
            for (Counter c : List.of(Counter.SAMPLES_APPENDED, Counter.SAMPLES_OUT_OF_ORDER, Counter.SAMPLES_TOO_OLD,
                    Counter.SAMPLES_DUPLICATE, Counter.SAMPLES_DUPLICATE_TIMESTAMP)) {
                assertThat(model.totals.getOrDefault(c, 0L)).as("seed %d %s", seed, c).isPositive();
            }
            assertThat(replays).as("seed %d replays with late samples", seed).isPositive();
            assertThat(restores).as("seed %d checkpoint restores", seed).isPositive();
        }
    }

    private Shard reopen(ShardFixture f, Model model) throws IOException {
        f.shard = null;
        Shard shard = f.open(options());
        assertThat(shard.stats().get(Counter.REPLAY_MALFORMED_RECORDS)).isZero();
        assertThat(shard.restoreReport().damage()).isEmpty();
        model.counts.clear();
        return shard;
    }

    /** One sample of series {@code s}: in order, late inside the window, too old, or a repeat of a stored one. */
    private static long[] nextSample(SplittableRandom random, Model model, String name, long[] next, int s) {
        long bits = Double.doubleToRawLongBits(random.nextInt(1000) / 4.0);
        TreeMap<Long, Long> stored = model.stored.get(name);
        int kind = random.nextInt(10);
        if (stored != null && !stored.isEmpty()) {
            if (kind == 0) { // a repeat of any stored sample: the same value (duplicate) or another one
                long t = stored.ceilingKey(stored.firstKey() + random.nextLong(stored.lastKey() - stored.firstKey() + 1));
                return new long[] {t, random.nextBoolean() ? stored.get(t) : bits};
            }
            if (kind <= 3) { // late: up to the window (and a bit beyond) before the shard's newest
                long t = model.shardNewest - random.nextLong(WINDOW_MS + 60_000);
                if (t < stored.lastKey()) {
                    return new long[] {t, bits};
                }
            }
            if (kind == 4) { // too old
                return new long[] {model.shardNewest - WINDOW_MS - 1 - random.nextLong(5 * WINDOW_MS), bits};
            }
        }
        long t = next[s];
        next[s] += 1 + random.nextInt(kind == 5 ? 120_000 : 20_000);
        return new long[] {t, bits};
    }

    private static void assertCounts(Shard shard, Model model, long seed) {
        for (Counter c : List.of(Counter.SAMPLES_APPENDED, Counter.SAMPLES_OUT_OF_ORDER, Counter.SAMPLES_TOO_OLD,
                Counter.SAMPLES_DUPLICATE, Counter.SAMPLES_DUPLICATE_TIMESTAMP)) {
            assertThat(shard.stats().get(c)).as("seed %d %s", seed, c).isEqualTo(model.counts.getOrDefault(c, 0L));
        }
    }

    private static void assertStored(ShardFixture f, Model model, long seed, SplittableRandom random) {
        Map<String, List<long[]>> all = f.readAll(Long.MIN_VALUE, Long.MAX_VALUE);
        for (Map.Entry<String, TreeMap<Long, Long>> e : model.stored.entrySet()) {
            assertThat(flat(all.get(e.getKey()))).as("seed %d series %s", seed, e.getKey()).isEqualTo(flat(e.getValue()));
        }
        assertThat(all.size()).isEqualTo(model.stored.size());
        // A narrow range: the merged stream cut at both ends.
        long newest = model.shardNewest;
        long min = newest - random.nextLong(3 * WINDOW_MS);
        long max = min + random.nextLong(WINDOW_MS);
        Map<String, List<long[]>> narrow = f.readAll(min, max);
        for (Map.Entry<String, TreeMap<Long, Long>> e : model.stored.entrySet()) {
            assertThat(flat(narrow.get(e.getKey()))).as("seed %d series %s [%d, %d]", seed, e.getKey(), min, max)
                    .isEqualTo(flat(e.getValue().subMap(min, true, max, true)));
        }
        // Remote-read's chunks: each decodes time-ordered, and they follow one another without overlap.
        SeriesSnapshot snapshot = new SeriesSnapshot();
        SeriesSnapshot.ExactChunk chunk = new SeriesSnapshot.ExactChunk();
        XorIterator it = new XorIterator();
        for (int id = 0; id < f.shard.seriesCount(); id++) {
            f.shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            long previous = Long.MIN_VALUE;
            for (int c = 0; c < snapshot.chunkCount(); c++) {
                snapshot.exactChunk(c, chunk);
                assertThat(chunk.minTimeMs()).as("seed %d chunk %d", seed, c).isGreaterThan(previous);
                it.reset(MemorySegment.ofArray(chunk.bytes()), chunk.offset(), chunk.length(), chunk.numSamples());
                while (it.next()) {
                    assertThat(it.timestampMs()).isGreaterThan(previous);
                    previous = it.timestampMs();
                }
                assertThat(it.hasError()).isFalse();
                assertThat(previous).isEqualTo(chunk.maxTimeMs());
            }
        }
    }

    private static String flat(List<long[]> samples) {
        StringBuilder sb = new StringBuilder();
        if (samples != null) {
            for (long[] s : samples) {
                sb.append(s[0]).append('=').append(s[1]).append(' ');
            }
        }
        return sb.toString();
    }

    private static String flat(Map<Long, Long> samples) {
        List<long[]> list = new ArrayList<>();
        samples.forEach((t, v) -> list.add(new long[] {t, v}));
        return flat(list);
    }
}
