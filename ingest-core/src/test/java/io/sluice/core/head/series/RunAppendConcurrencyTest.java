package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.memory.MemoryAccounting;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Readers during run appends: while one thread appends runs (with duplicates and out-of-order
 * samples among them, cuts and block grows), reader threads take snapshots of the series and decode
 * them, over the whole range or from a random sample on (a narrow window: only the open chunk, or
 * the closed chunks from there). Every chunk they see must come out exact
 * ({@link SeriesSnapshot#exactChunk}: its length, sample count and first and last timestamps those of
 * its samples, the bits after the last zero) and hold a prefix of the series' accepted samples,
 * never a torn or foreign sample.
 */
class RunAppendConcurrencyTest {
    private static final int SERIES = 64;
    private static final int SAMPLES = 3_000;
    private static final long STEP_MS = 15_000;
    private static final long BASE_MS = 1_700_000_000_000L;
    private static final AtomicLong newestRead = new AtomicLong();

    /** The value of sample {@code k} of series {@code s}: gauges with some repeats, distinct per series. */
    private static long value(int s, long k) {
        return Double.doubleToRawLongBits(s * 1_000.0 + (k % 11 == 0 ? 0.5 : k % 997 * 0.25));
    }

    @Test
    void readersNeverSeeTornOrForeignSamples() throws Exception {
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            ExecutorService pool = Executors.newFixedThreadPool(3);
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong checked = new AtomicLong();
            try {
                Future<?> writer = pool.submit(() -> write(store, done, checked));
                Future<?>[] readers = new Future<?>[2];
                for (int r = 0; r < readers.length; r++) {
                    int seed = r;
                    readers[r] = pool.submit(() -> read(store, done, checked, seed));
                }
                writer.get(2, TimeUnit.MINUTES);
                for (Future<?> reader : readers) {
                    reader.get(2, TimeUnit.MINUTES);
                }
            } finally {
                done.set(true);
                pool.shutdownNow();
                assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
            }
            assertThat(checked.get()).as("samples checked by readers").isPositive();
            assertThat(newestRead.get()).as("instant reads answered without a chunk").isPositive();
            for (int s = 0; s < SERIES; s++) {
                assertThat(verify(store, s, 0, new SeriesSnapshot())).as("series %d at the end", s).isEqualTo(SAMPLES);
            }
        }
    }

    /**
     * Appends every sample; halfway it waits until a reader has checked some (on a loaded machine the
     * readers may otherwise first run after the writer is done, and then check nothing concurrent).
     */
    private static void write(SeriesStore store, AtomicBoolean done, AtomicLong checked) {
        try {
            for (int s = 0; s < SERIES; s++) {
                byte[] labels = ("series-" + s).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                store.create(s, labels, 0, labels.length);
            }
            SplittableRandom random = new SplittableRandom(5);
            long[] ts = new long[400];
            long[] vs = new long[400];
            int[] next = new int[SERIES];
            AppendCounts counts = new AppendCounts();
            int left = SERIES;
            boolean waited = false;
            while (left > 0) {
                if (!waited && left <= SERIES / 2) {
                    waited = true;
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                    while (checked.get() == 0 && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                }
                int s = random.nextInt(SERIES);
                if (next[s] == SAMPLES) {
                    continue;
                }
                int n = 0;
                int want = 1 + random.nextInt(random.nextBoolean() ? 8 : 300);
                while (n < want && next[s] < SAMPLES) {
                    if (next[s] > 0 && random.nextInt(20) == 0) { // a duplicate or an older sample: skipped
                        long k = next[s] - 1 - random.nextInt(Math.min(next[s], 3));
                        ts[n] = BASE_MS + k * STEP_MS;
                        vs[n++] = random.nextBoolean() ? value(s, k) : value(s, k) ^ 1;
                        continue;
                    }
                    ts[n] = BASE_MS + next[s] * STEP_MS;
                    vs[n++] = value(s, next[s]++);
                }
                if (n == 1 && random.nextBoolean()) { // the one-sample path too
                    counts.add(store.append(s, ts[0], vs[0]));
                } else {
                    store.appendRun(s, ts, vs, 0, n, counts);
                }
                left -= next[s] == SAMPLES ? 1 : 0;
            }
            assertThat(counts.appended).isEqualTo((long) SERIES * SAMPLES);
        } finally {
            done.set(true);
        }
    }

    private static void read(SeriesStore store, AtomicBoolean done, AtomicLong checked, int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        SeriesSnapshot snapshot = new SeriesSnapshot();
        while (!done.get()) {
            int count = store.count();
            if (count == 0) {
                Thread.onSpinWait();
                continue;
            }
            checked.addAndGet(verify(store, random.nextInt(count), random.nextBoolean() ? 0 : random.nextInt(SAMPLES), snapshot));
        }
    }

    /**
     * Checks a snapshot of series {@code s} from sample {@code from} on: exact whole chunks holding
     * samples from..n-1; returns n - from (0 when the series has no sample there yet).
     */
    private static int verify(SeriesStore store, int s, int from, SeriesSnapshot snapshot) {
        store.snapshot(s, BASE_MS + from * STEP_MS, Long.MAX_VALUE, snapshot);
        SeriesSnapshot.ExactChunk chunk = new SeriesSnapshot.ExactChunk();
        for (int c = 0; c < snapshot.chunkCount(); c++) {
            snapshot.exactChunk(c, chunk); // throws if a chunk does not decode
            byte[] exact = chunk.toByteArray();
            XorIterator it = new XorIterator().reset(exact);
            int n = 0;
            long first = 0;
            long last = 0;
            while (it.next()) {
                first = n++ == 0 ? it.timestampMs() : first;
                last = it.timestampMs();
            }
            assertThat(it.hasError()).as("series %d chunk %d decodes", s, c).isFalse();
            assertThat(n).as("series %d chunk %d samples", s, c).isPositive().isEqualTo(chunk.numSamples());
            assertThat(first).as("series %d chunk %d first", s, c).isEqualTo(chunk.minTimeMs());
            assertThat(last).as("series %d chunk %d last", s, c).isEqualTo(chunk.maxTimeMs());
            assertThat((it.bitLength() + Byte.SIZE - 1) / Byte.SIZE).as("series %d chunk %d length", s, c).isEqualTo(exact.length);
            int tailBits = (int) (exact.length * (long) Byte.SIZE - it.bitLength());
            assertThat(exact[exact.length - 1] & ((1 << tailBits) - 1)).as("bits after the last sample").isZero();
        }
        SeriesSnapshot.Samples samples = snapshot.samples();
        int k = from;
        while (samples.next()) {
            assertThat(samples.timestampMs()).as("series %d sample %d", s, k).isEqualTo(BASE_MS + k * STEP_MS);
            assertThat(samples.valueBits()).as("series %d sample %d", s, k).isEqualTo(value(s, k));
            k++;
        }
        assertThat(samples.hasCorruptChunk()).isFalse();
        // An instant read taken after it: the newest sample (without chunks, when the store could tell it),
        // at least the last one above, its value that of its timestamp
        SeriesSnapshot instant = new SeriesSnapshot();
        instant.readNewestOnly();
        store.snapshot(s, BASE_MS + from * STEP_MS, Long.MAX_VALUE, instant);
        SeriesSnapshot.Samples latest = instant.samples();
        boolean found = latest.latest(Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(found || k == from).as("series %d latest", s).isTrue();
        if (found) {
            long j = (latest.timestampMs() - BASE_MS) / STEP_MS;
            assertThat(latest.timestampMs()).as("series %d latest", s).isEqualTo(BASE_MS + j * STEP_MS);
            assertThat(j).as("series %d latest", s).isGreaterThanOrEqualTo(k - 1L);
            assertThat(latest.valueBits()).as("series %d latest sample %d", s, j).isEqualTo(value(s, j));
            newestRead.addAndGet(instant.chunkCount() == 0 ? 1 : 0);
        }
        return k - from;
    }
}
