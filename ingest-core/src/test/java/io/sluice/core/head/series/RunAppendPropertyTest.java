package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.memory.MemoryAccounting;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SeriesStore#appendRun} against {@link SeriesStore#append}: seeded random streams per series
 * (gauges, counters, constants, NaN / ±Inf / stale markers, random bits; regular, jittered and
 * irregular spacing, bursts of millisecond spacing that push chunks past 240 samples, huge and
 * negative deltas, chunk-range crossings, duplicates, duplicate timestamps, out-of-order samples,
 * idle cuts between runs) go sample by sample into one store and in runs of random lengths into
 * another. Both must hold the same chunks byte for byte (closed and open), the same closed lists,
 * times and chunk ends, count the same outcomes, and read back the same samples — the ones a model
 * of Prometheus' rules accepts.
 */
class RunAppendPropertyTest {
    private static final int SERIES = 24;

    /** One series' stream: timestamps and value bits in arrival order. */
    private record Stream(long[] timestampsMs, long[] valueBits) {
    }

    @Test
    void runsGiveTheSameChunksCountsAndSamplesAsSampleBySample() {
        for (long seed = 1; seed <= 6; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            Stream[] streams = new Stream[SERIES];
            for (int s = 0; s < SERIES; s++) {
                streams[s] = stream(random.split(), (s == 0 ? 700 : 200) + random.nextInt(1_500), s == 0);
            }
            compare(seed, streams, random);
        }
    }

    private static void compare(long seed, Stream[] streams, SplittableRandom random) {
        long chunkRangeMs = random.nextBoolean() ? ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS : 600_000;
        try (SeriesStore perSample = new SeriesStore(new MemoryAccounting(), chunkRangeMs);
             SeriesStore perRun = new SeriesStore(new MemoryAccounting(), chunkRangeMs)) {
            // The store's default window is 0: every late sample is too old, so the chunks follow Prometheus'
            // in-order rules alone (late samples stored out of order: OutOfOrderPropertyTest).
            AppendCounts sampleCounts = new AppendCounts();
            AppendCounts runCounts = new AppendCounts();
            int[] position = new int[SERIES];
            for (int s = 0; s < SERIES; s++) {
                byte[] labels = ("series-" + s).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                perSample.create(s, labels, 0, labels.length);
                perRun.create(s, labels, 0, labels.length);
            }
            int left = SERIES;
            while (left > 0) {
                int s = random.nextInt(SERIES); // runs of different series interleave, as replay flushes them
                Stream st = streams[s];
                int from = position[s];
                if (from == st.timestampsMs().length) {
                    continue;
                }
                int to = Math.min(st.timestampsMs().length, from + 1 + random.nextInt(random.nextInt(8) == 0 ? 400 : 70));
                for (int i = from; i < to; i++) {
                    sampleCounts.add(perSample.append(s, st.timestampsMs()[i], st.valueBits()[i]));
                }
                long inOrderBefore = runCounts.appended - runCounts.outOfOrder;
                int appended = perRun.appendRun(s, st.timestampsMs(), st.valueBits(), from, to, runCounts);
                assertThat(runCounts.appended - runCounts.outOfOrder - inOrderBefore).as("in order").isEqualTo(appended);
                position[s] = to;
                if (to == st.timestampsMs().length) {
                    left--;
                } else if (random.nextInt(30) == 0) {
                    assertThat(perRun.cutIdle(s)).isEqualTo(perSample.cutIdle(s));
                }
                assertThat(runCounts.total()).isEqualTo(sampleCounts.total());
            }
            assertThat(runCounts.appended).as("seed %d appended", seed).isEqualTo(sampleCounts.appended);
            assertThat(runCounts.outOfOrder).as("seed %d out of order", seed).isEqualTo(sampleCounts.outOfOrder);
            assertThat(runCounts.tooOld).as("seed %d too old", seed).isEqualTo(sampleCounts.tooOld).isPositive();
            assertThat(runCounts.duplicate).as("seed %d duplicates", seed).isEqualTo(sampleCounts.duplicate).isPositive();
            assertThat(runCounts.duplicateTimestamp).as("seed %d duplicate timestamps", seed)
                    .isEqualTo(sampleCounts.duplicateTimestamp).isPositive();
            assertThat(perRun.newestTimestampMs()).isEqualTo(perSample.newestTimestampMs());
            int over240 = 0;
            for (int s = 0; s < SERIES; s++) {
                over240 += sameSeries(seed, s, perSample, perRun, streams[s]);
            }
            assertThat(over240).as("seed %d: chunks cut at %d samples (bursts)", seed, ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK).isPositive();
        }
    }

    /** Asserts series {@code s} is the same in both stores; returns how many of its chunks were cut at 240 samples. */
    private static int sameSeries(long seed, int s, SeriesStore perSample, SeriesStore perRun, Stream stream) {
        String as = "seed " + seed + " series " + s;
        assertThat(perRun.maxTime(s)).as(as).isEqualTo(perSample.maxTime(s));
        assertThat(perRun.minTime(s)).as(as).isEqualTo(perSample.minTime(s));
        assertThat(perRun.lastValueBits(s)).as(as).isEqualTo(perSample.lastValueBits(s));
        assertThat(perRun.struct(s).get(java.lang.foreign.ValueLayout.JAVA_LONG, SeriesStore.structBase(s) + SeriesDescriptor.CHUNK_END_OFFSET))
                .as(as + " chunk end").isEqualTo(perSample.struct(s).get(java.lang.foreign.ValueLayout.JAVA_LONG,
                        SeriesStore.structBase(s) + SeriesDescriptor.CHUNK_END_OFFSET));
        assertThat(perRun.closedCount(s)).as(as).isEqualTo(perSample.closedCount(s));
        for (int c = 0; c < perSample.closedCount(s); c++) {
            for (int field : new int[] {SeriesDescriptor.CLOSED_ENTRY_MIN_TIME, SeriesDescriptor.CLOSED_ENTRY_MAX_TIME}) {
                assertThat(perRun.closedEntry(s, c, field)).as(as + " closed " + c).isEqualTo(perSample.closedEntry(s, c, field));
            }
        }
        SeriesSnapshot a = new SeriesSnapshot();
        SeriesSnapshot b = new SeriesSnapshot();
        perSample.snapshot(s, Long.MIN_VALUE, Long.MAX_VALUE, a);
        perRun.snapshot(s, Long.MIN_VALUE, Long.MAX_VALUE, b);
        assertThat(b.chunkCount()).as(as).isEqualTo(a.chunkCount());
        SeriesSnapshot.ExactChunk ca = new SeriesSnapshot.ExactChunk();
        SeriesSnapshot.ExactChunk cb = new SeriesSnapshot.ExactChunk();
        int big = 0;
        for (int c = 0; c < a.chunkCount(); c++) {
            a.exactChunk(c, ca);
            b.exactChunk(c, cb);
            assertThat(cb.toByteArray()).as(as + " chunk " + c).isEqualTo(ca.toByteArray());
            assertThat(cb.minTimeMs()).isEqualTo(ca.minTimeMs());
            assertThat(cb.maxTimeMs()).isEqualTo(ca.maxTimeMs());
            big += ca.numSamples() == ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK ? 1 : 0;
        }
        // Both read back exactly what Prometheus' rules accept.
        long[] expected = accepted(stream);
        SeriesSnapshot.Samples it = b.samples();
        int n = 0;
        while (it.next()) {
            assertThat(it.timestampMs()).as(as + " sample " + n).isEqualTo(expected[2 * n]);
            assertThat(it.valueBits()).as(as + " sample " + n).isEqualTo(expected[2 * n + 1]);
            n++;
        }
        assertThat(n).as(as).isEqualTo(expected.length / 2);
        return big;
    }

    /** The model: a sample is kept when its timestamp is after the last kept one. Pairs (t, v) flattened. */
    private static long[] accepted(Stream stream) {
        long[] out = new long[2 * stream.timestampsMs().length];
        int n = 0;
        long last = Long.MIN_VALUE;
        for (int i = 0; i < stream.timestampsMs().length; i++) {
            long t = stream.timestampsMs()[i];
            if (n == 0 || t > last) {
                out[2 * n] = t;
                out[2 * n + 1] = stream.valueBits()[i];
                last = t;
                n++;
            }
        }
        return Arrays.copyOf(out, 2 * n);
    }

    /** {@code burst}: millisecond bursts of a constant, so chunks fill to 240 samples before 1 KiB. */
    private static Stream stream(SplittableRandom r, int n, boolean burst) {
        long[] ts = new long[n];
        long[] vs = new long[n];
        long t = r.nextInt(5) == 0 ? -r.nextLong(1L << 40) : 1_700_000_000_000L + r.nextLong(1L << 30);
        int valueShape = burst ? 2 : r.nextInt(6);
        int spacingShape = burst ? 2 : r.nextInt(4);
        double level = r.nextDouble(-1e6, 1e6);
        long counter = r.nextLong(1 << 20);
        for (int i = 0; i < n; i++) {
            int event = r.nextInt(100);
            if (i > 0 && event < 3) { // an exact duplicate
                ts[i] = ts[i - 1];
                vs[i] = vs[i - 1];
                continue;
            }
            if (i > 0 && event < 5) { // the same timestamp, another value
                ts[i] = ts[i - 1];
                vs[i] = vs[i - 1] ^ 1;
                continue;
            }
            if (i > 0 && event < 8) { // out of order
                ts[i] = ts[i - 1] - 1 - r.nextInt(60_000);
                vs[i] = Double.doubleToRawLongBits(r.nextDouble());
                continue;
            }
            t += switch (spacingShape) {
                case 0 -> 15_000;                                                    // regular
                case 1 -> 15_000 + r.nextInt(-50, 51);                               // jittered
                case 2 -> i % 300 < 30 ? 60_000 : 1 + r.nextInt(3);                  // bursts: more than 240 per chunk
                default -> r.nextInt(10) == 0 ? r.nextLong(1, 1L << 36) : 1 + r.nextInt(200_000); // huge deltas, ranges crossed
            };
            ts[i] = t;
            vs[i] = switch (r.nextInt(20) == 0 ? 5 : valueShape) {
                case 0 -> Double.doubleToRawLongBits(Math.round((level += r.nextGaussian() * 10) * 100) / 100.0); // gauge
                case 1 -> Double.doubleToRawLongBits(counter += r.nextInt(1_000));                                // counter
                case 2 -> Double.doubleToRawLongBits(42.0);                                                        // constant
                case 3 -> r.nextLong();                                                                             // random bits
                case 4 -> Double.doubleToRawLongBits(r.nextGaussian());
                default -> switch (r.nextInt(5)) {
                    case 0 -> Double.doubleToRawLongBits(Double.NaN);
                    case 1 -> 0x7ff0000000000002L; // stale marker
                    case 2 -> Double.doubleToRawLongBits(Double.POSITIVE_INFINITY);
                    case 3 -> Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY);
                    default -> Double.doubleToRawLongBits(-0.0);
                };
            };
        }
        return new Stream(ts, vs);
    }
}
