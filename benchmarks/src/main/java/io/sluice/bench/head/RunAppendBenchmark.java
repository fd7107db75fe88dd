package io.sluice.bench.head;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorAppender;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.memory.MemoryAccounting;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The head's chunk append as replay does it: runs of {@value #RUN} samples of one series at a time
 * (what {@code ReplayRuns} buffers), {@value #SERIES} node-exporter-like series (two-decimal gauges,
 * 15 s spacing), the head's cut policy and block growth, closed blocks freed (as after their chunk
 * file write). {@code perSample}: what {@code SeriesStore.append} does for each sample (wrap, cut
 * check through the appender's getters, append, grow on a refusal, chunk end after). {@code perRun}:
 * one {@link XorAppender#appendRun} per run, cut and grow between sub-runs as {@code SeriesStore.appendRun}.
 * The series structs' other fields (max time, seq lock) are left out: both variants would pay the
 * same per call. Score: ns per sample.
 */
@State(Scope.Thread)
public class RunAppendBenchmark extends AbstractBenchmark {
    static final int SERIES = 1_000;
    static final int RUN = 64;
    private static final long STEP_MS = 15_000;
    private static final long STRIDE = 64; // per series: the XOR state (40 bytes) and padding, like the head's struct lines

    private final MemoryAccounting accounting = new MemoryAccounting();
    private ChunkMemory memory;
    private Arena arena;
    private MemorySegment states;
    private final long[] open = new long[SERIES];
    private final long[] chunkEndMs = new long[SERIES];
    private final XorAppender appender = new XorAppender();
    private final long[] timestamps = new long[RUN];
    private final long[] values = new long[RUN];
    /** Values precomputed for a cycle of rounds, so the measured loop copies them instead of computing sines. */
    private static final int CYCLE = 15 * RUN;
    private final long[][] table = new long[SERIES][CYCLE];
    private long round;

    @Setup(Level.Trial)
    public void setUp() {
        memory = new ChunkMemory(accounting);
        arena = Arena.ofShared();
        states = arena.allocate(STRIDE * SERIES, 64);
        for (int s = 0; s < SERIES; s++) {
            XorStateDescriptor.reset(states, s * STRIDE);
            open[s] = ChunkHandle.NONE;
            for (int k = 0; k < CYCLE; k++) {
                table[s][k] = NodeCpuSeries.valueBits(s, k);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        memory.close();
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(SERIES * RUN)
    public long perSample() {
        long r = round;
        for (int s = 0; s < SERIES; s++) {
            fill(s, r);
            for (int i = 0; i < RUN; i++) {
                appendOne(s, timestamps[i], values[i]);
            }
        }
        round = r + RUN;
        return memory.usedBytes();
    }

    @Benchmark
    @OperationsPerInvocation(SERIES * RUN)
    public long perRun() {
        long r = round;
        for (int s = 0; s < SERIES; s++) {
            fill(s, r);
            appendRun(s);
        }
        round = r + RUN;
        return memory.usedBytes();
    }

    private void fill(int s, long r) {
        for (int i = 0; i < RUN; i++) {
            timestamps[i] = 1_700_000_000_000L + (r + i) * STEP_MS;
        }
        System.arraycopy(table[s], (int) (r % CYCLE), values, 0, RUN);
    }

    private void appendOne(int s, long t, long v) {
        if (open[s] == ChunkHandle.NONE) {
            newChunk(s, t, ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
        } else {
            wrap(s);
            if (ChunkCutPolicy.mustCutBefore(t, appender.numSamples(), appender.byteLength(), chunkEndMs[s])) {
                memory.free(open[s]);
                newChunk(s, t, ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
            }
        }
        if (!appender.append(t, v)) {
            grow(s, ChunkCutPolicy.grownCapacityBytes(appender.capacityBytes()));
            appender.append(t, v);
        }
        chunkEndMs[s] = ChunkCutPolicy.chunkEndAfterAppendMs(chunkEndMs[s], appender.numSamples(), appender.firstTimestampMs(), t);
    }

    private void appendRun(int s) {
        if (open[s] == ChunkHandle.NONE) {
            newChunk(s, timestamps[0], ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
        } else {
            wrap(s);
        }
        int i = 0;
        while (i < RUN) {
            i = appender.appendRun(timestamps, values, i, RUN, chunkEndMs[s]);
            chunkEndMs[s] = appender.runChunkEndMs();
            switch (appender.runStop()) {
                case XorAppender.RUN_CUT -> {
                    int next = ChunkCutPolicy.runCapacityBytes(0, 2, (appender.byteLength() - 2) * Math.min(RUN - i, appender.numSamples())
                            / appender.numSamples());
                    memory.free(open[s]);
                    newChunk(s, timestamps[i], next);
                }
                case XorAppender.RUN_FULL -> grow(s, ChunkCutPolicy.runCapacityBytes(appender.capacityBytes(), appender.byteLength(),
                        (RUN - i) * 4));
                default -> {
                }
            }
        }
    }

    private void newChunk(int s, long t, int capacityBytes) {
        open[s] = memory.allocate(capacityBytes);
        XorStateDescriptor.reset(states, s * STRIDE);
        chunkEndMs[s] = ChunkCutPolicy.chunkRangeEndMs(t, ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS);
        wrap(s);
    }

    private void grow(int s, int capacityBytes) {
        long grown = memory.copy(open[s], appender.byteLength(), capacityBytes);
        memory.free(open[s]);
        open[s] = grown;
        wrap(s);
    }

    private void wrap(int s) {
        long h = open[s];
        appender.wrap(states, s * STRIDE, memory.page(h), ChunkMemory.offset(h), ChunkHandle.capacityBytes(h));
    }
}
