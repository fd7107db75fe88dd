package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.series.SeriesSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A seeded, replayable feed for persistence tests: {@code series} node-exporter-like series, one
 * sample each per round (15 s apart, noisy gauge values), one Kafka record per round. Round r is
 * always the same data, so a test can deliver it again (Kafka re-delivery) or to a reference shard.
 */
final class PersistFeed {
    static final long T0 = 1_700_000_000_000L;
    static final long STEP_MS = 15_000L;
    final byte[][] canon;
    final long[] hashes;
    final long seed;

    PersistFeed(ShardFixture f, int series, long seed) {
        this.seed = seed;
        canon = new byte[series][];
        hashes = new long[series];
        for (int s = 0; s < series; s++) {
            canon[s] = f.canonical("__name__", s % 3 == 0 ? "node_load1" : "node_memory_free_bytes", "instance",
                    "host-" + s + ":9100", "job", "node", "region", "eu-" + s % 4);
            hashes[s] = f.hash(canon[s]);
        }
    }

    /** The timestamp of round {@code r}. */
    long timestampMs(int r) {
        return T0 + r * STEP_MS;
    }

    /** The value of series {@code s} at round {@code r}: a realistic gauge, rounded to 2 decimals. */
    long value(int s, int r) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + (long) s * 7919 + r);
        double v = 100 + s + 5 * Math.sin(r * 0.05 + s) + random.nextDouble(-0.5, 0.5);
        return Double.doubleToRawLongBits(Math.round(v * 100) / 100.0);
    }

    /** Delivers rounds [from, to) as records with offset = round, series {@code keep(s)} only, and applies them. */
    void deliver(ShardFixture f, Shard shard, int stream, int from, int to, java.util.function.IntPredicate keep) {
        for (int r = from; r < to; r++) {
            ShardBatch batch = shard.acquireBatch();
            if (batch == null) {
                f.drain();
                batch = shard.acquireBatch();
            }
            assertThat(batch.record(stream, r)).isTrue();
            for (int s = 0; s < canon.length; s++) {
                if (keep.test(s)) {
                    assertThat(batch.series(hashes[s], canon[s], 0, canon[s].length)).isTrue();
                    assertThat(batch.sample(timestampMs(r), value(s, r))).isTrue();
                }
            }
            shard.submit(batch);
            f.drain();
        }
    }

    void deliver(ShardFixture f, Shard shard, int stream, int from, int to) {
        deliver(f, shard, stream, from, to, s -> true);
    }

    /** Every series with samples, by labels: its samples as {t, bits} and (key "#chunks") its chunk count. */
    static Map<String, List<long[]>> contents(Shard shard) {
        Map<String, List<long[]>> out = new LinkedHashMap<>();
        SeriesSnapshot snapshot = new SeriesSnapshot();
        for (int id = 0; id < shard.seriesCount(); id++) {
            shard.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            if (snapshot.chunkCount() == 0) {
                continue;
            }
            List<long[]> samples = new ArrayList<>();
            samples.add(new long[] {-1, snapshot.chunkCount()}); // chunk structure first
            for (SeriesSnapshot.Samples it = snapshot.samples(); it.next(); ) {
                samples.add(new long[] {it.timestampMs(), it.valueBits()});
            }
            assertThat(snapshot.samples().hasCorruptChunk()).isFalse();
            out.put(snapshot.labels().toString(), samples);
        }
        return out;
    }

    /** Contents as comparable strings (long[] has identity equality). */
    static Map<String, String> flat(Map<String, List<long[]>> contents) {
        Map<String, String> out = new java.util.TreeMap<>();
        contents.forEach((k, v) -> {
            StringBuilder sb = new StringBuilder();
            for (long[] p : v) {
                sb.append(p[0]).append(':').append(Long.toHexString(p[1])).append(' ');
            }
            out.put(k, sb.toString());
        });
        return out;
    }

    static long sampleCount(Map<String, List<long[]>> contents) {
        return contents.values().stream().mapToLong(l -> l.size() - 1).sum();
    }
}
