package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.memory.MemoryAccounting;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * {@link SeriesStore#appendRun} allocates nothing on the heap once warm: runs of 64 samples into 200
 * series, with cuts, grows and (through retention dropping old closed chunks, so chunk memory reaches
 * a steady state and needs no new pages) frees, measured with ThreadMXBean on this thread after a
 * warm-up that compiles the path.
 */
class RunAppendAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SERIES = 200;
    private static final int RUN = 64;
    private static final long STEP_MS = 15_000;

    @Test
    void runAppendsAllocateNothingOnceWarm() {
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            for (int s = 0; s < SERIES; s++) {
                byte[] labels = ("s" + s).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                store.create(s, labels, 0, labels.length);
            }
            long[] ts = new long[RUN];
            long[] vs = new long[RUN];
            AppendCounts counts = new AppendCounts();
            long[] next = {1_700_000_000_000L};
            for (int round = 0; round < 400; round++) {
                round(store, ts, vs, counts, next);
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            int rounds = 400;
            for (int round = 0; round < rounds; round++) {
                round(store, ts, vs, counts, next);
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            long runs = (long) rounds * SERIES;
            System.out.printf("appendRun: %d bytes allocated over %d runs (%d samples)%n", allocated, runs, runs * RUN);
            assertThat(counts.appended).isEqualTo(800L * SERIES * RUN);
            assertThat(allocated).as("bytes over %d runs", runs).isLessThan(1_024); // the measuring itself, not the runs
        }
    }

    /** One run of 64 samples per series, then retention drops what is older than 6 hours. */
    private static void round(SeriesStore store, long[] ts, long[] vs, AppendCounts counts, long[] next) {
        long t0 = next[0];
        for (int s = 0; s < SERIES; s++) {
            for (int i = 0; i < RUN; i++) {
                ts[i] = t0 + i * STEP_MS;
                vs[i] = Double.doubleToRawLongBits(Math.round((s * 10 + Math.sin((t0 / STEP_MS + i) * 0.01)) * 100) / 100.0);
            }
            store.appendRun(s, ts, vs, 0, RUN, counts);
            store.dropExpired(s, t0 - 6 * 3_600_000L);
        }
        next[0] = t0 + RUN * STEP_MS;
    }
}
