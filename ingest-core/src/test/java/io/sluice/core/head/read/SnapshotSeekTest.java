package io.sluice.core.head.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.HeapXorEncoder;
import io.sluice.core.head.series.SeriesSnapshot;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SeriesSnapshot.Samples#seek}: lands on the first sample at or after the target within the
 * snapshot's range (across chunk boundaries, before and after {@code next()}), stays on the current
 * sample when it already is there, and agrees with walking the samples one by one.
 */
class SnapshotSeekTest {
    @Test
    void seekAgreesWithWalkingTheSamples() {
        SplittableRandom random = new SplittableRandom(5);
        int n = 350;
        long[] ts = new long[n];
        long[] vs = new long[n];
        randomSamples(random, ts, vs);
        long minT = ts[37] - 1;
        long maxT = ts[301];
        SeriesSnapshot snapshot = new SeriesSnapshot();
        snapshot.reset(0, minT, maxT);
        HeapXorEncoder encoder = new HeapXorEncoder();
        for (int from = 0; from < n; from += 120) { // three chunks
            int to = Math.min(n, from + 120);
            encoder.encode(ts, vs, from, to);
            snapshot.addChunk(MemorySegment.ofArray(encoder.bytes()), 0, encoder.length(), to - from);
        }
        for (int trial = 0; trial < 2_000; trial++) {
            SeriesSnapshot.Samples s = snapshot.samples();
            int at = -1; // index of the current sample, -1 before the first
            for (int step = 0; step < 6; step++) {
                if (random.nextBoolean()) {
                    long target = ts[0] - 5 + random.nextLong(ts[n - 1] - ts[0] + 10);
                    int expected = firstAtOrAfter(ts, Math.max(target, minT), at);
                    boolean found = s.seek(target);
                    if (expected < 0 || ts[expected] > maxT) {
                        assertThat(found).isFalse();
                        break;
                    }
                    assertThat(found).isTrue();
                    at = expected;
                } else {
                    int expected = at < 0 ? firstAtOrAfter(ts, minT, -1) : at + 1;
                    boolean found = s.next();
                    if (expected >= n || ts[expected] > maxT) {
                        assertThat(found).isFalse();
                        break;
                    }
                    assertThat(found).isTrue();
                    at = expected;
                }
                assertThat(s.timestampMs()).isEqualTo(ts[at]);
                assertThat(s.valueBits()).isEqualTo(vs[at]);
            }
        }
    }

    /**
     * {@link SeriesSnapshot.Samples#latest}: the latest sample in [from, to] and in the snapshot's range,
     * the same whether the series' newest sample was published ({@link SeriesSnapshot#newestSample}) or
     * the chunks are decoded; afterwards the iteration is over.
     */
    @Test
    void latestIsTheLastSampleAtOrBeforeTheEndWithOrWithoutTheNewestSample() {
        SplittableRandom random = new SplittableRandom(7);
        int n = 300;
        long[] ts = new long[n];
        long[] vs = new long[n];
        randomSamples(random, ts, vs);
        HeapXorEncoder encoder = new HeapXorEncoder();
        for (int trial = 0; trial < 2_000; trial++) {
            long minT = ts[0] - 5 + random.nextLong(ts[n - 1] - ts[0] + 10);
            long maxT = minT + random.nextLong(ts[n - 1] - ts[0] + 10);
            boolean newestKnown = random.nextBoolean();
            SeriesSnapshot snapshot = new SeriesSnapshot();
            snapshot.reset(0, minT, maxT);
            for (int from = 0; from < n; from += 120) {
                int to = Math.min(n, from + 120);
                encoder.encode(ts, vs, from, to);
                snapshot.addChunk(MemorySegment.ofArray(encoder.bytes()), 0, encoder.length(), to - from);
            }
            if (newestKnown) {
                snapshot.newestSample(ts[n - 1], vs[n - 1]);
            }
            long from = ts[0] - 5 + random.nextLong(ts[n - 1] - ts[0] + 10);
            long to = from + random.nextLong(300_000);
            int expected = -1;
            for (int i = 0; i < n; i++) {
                if (ts[i] >= Math.max(from, minT) && ts[i] <= Math.min(to, maxT)) {
                    expected = i;
                }
            }
            SeriesSnapshot.Samples s = snapshot.samples();
            if (random.nextBoolean()) {
                s.next(); // a read before does not change the answer
            }
            boolean found = s.latest(from, to);
            assertThat(found).as("trial %d (newest known: %s)", trial, newestKnown).isEqualTo(expected >= 0);
            if (found) {
                assertThat(s.timestampMs()).isEqualTo(ts[expected]);
                assertThat(s.valueBits()).isEqualTo(vs[expected]);
            }
            assertThat(s.next()).isFalse();
        }
    }

    /** The first index at or after {@code current} (the current sample stays) with a timestamp >= target. */
    private static int firstAtOrAfter(long[] ts, long target, int current) {
        for (int i = Math.max(current, 0); i < ts.length; i++) {
            if (ts[i] >= target) {
                return i;
            }
        }
        return -1;
    }

    /** Increasing timestamps 1 ms to 30 s apart from 10,000, Gaussian values: one per slot of {@code ts} and {@code vs}. */
    private static void randomSamples(SplittableRandom random, long[] ts, long[] vs) {
        long t = 10_000;
        for (int i = 0; i < ts.length; i++) {
            t += 1 + random.nextInt(30_000);
            ts[i] = t;
            vs[i] = Double.doubleToRawLongBits(random.nextGaussian());
        }
    }
}
