package io.sluice.bench.chunks;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorAppender;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.memory.MemoryAccounting;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * XOR chunk encode and iterate, per sample, on the shapes of Prometheus' BenchmarkAppender and
 * BenchmarkIterator (tsdb/chunkenc/benchmark_test.go): 120 samples from 2025-11-04 10:01:20,
 * starting value 1243535.123, then
 * <ul>
 *   <li>{@code constant}: t += 15 s, same value ("vt=constant");</li>
 *   <li>{@code random-steps}: t += 15 s +-50 ms, v += an integer in [-50, 50) ("vt=random steps");</li>
 *   <li>{@code random-0-1}: t += 15 s +-50 ms, v += k/100 for k in [0, 100) ("vt=random 0-1");</li>
 *   <li>{@code regular-0-1}: t += 15 s exactly, v as random-0-1 (completes the 2x2 grid).</li>
 * </ul>
 * The random draws come from SplittableRandom(1), not Go's math/rand(1): same distributions,
 * different numbers, so chunk sizes differ from Prometheus' by a few bytes.
 *
 * <p>encode: a fresh chunk (state reset) in a block of {@link ChunkCutPolicy#MAX_OPEN_CAPACITY_BYTES}
 * from {@link ChunkMemory}, as the head's open chunk; iterate: decode the whole chunk.
 */
@State(Scope.Thread)
public class XorChunkBenchmark extends AbstractBenchmark {
    public static final int SAMPLES = 120;
    /** 2025-11-04 10:01:05 UTC + 15 s, Prometheus' initT. */
    static final long START_MS = 1_762_250_465_000L + 15_000;
    static final double START_VALUE = 1243535.123;

    @Param({"constant", "random-steps", "random-0-1", "regular-0-1"})
    public String shape;

    private final long[] timestampsMs = new long[SAMPLES];
    private final long[] valueBits = new long[SAMPLES];
    private final XorAppender appender = new XorAppender();
    private final XorIterator iterator = new XorIterator();
    private ChunkMemory memory;
    private Arena arena;
    private MemorySegment state;
    private MemorySegment page;
    private long blockOffset;
    private int capacityBytes;
    private int encodedLength;

    @Setup
    public void setUp() {
        generate(shape, timestampsMs, valueBits);
        memory = new ChunkMemory(new MemoryAccounting());
        arena = Arena.ofShared();
        state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
        long block = memory.allocate(ChunkCutPolicy.MAX_OPEN_CAPACITY_BYTES);
        page = memory.page(block);
        blockOffset = ChunkMemory.offset(block);
        capacityBytes = ChunkHandle.capacityBytes(block);
        encodedLength = encode();
    }

    @TearDown
    public void tearDown() {
        arena.close();
        memory.close();
    }

    /** Appends the 120 samples to an empty chunk; returns its length in bytes. */
    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public int encode() {
        XorStateDescriptor.reset(state, 0);
        XorAppender app = appender.wrap(state, 0, page, blockOffset, capacityBytes);
        for (int i = 0; i < SAMPLES; i++) {
            app.append(timestampsMs[i], valueBits[i]);
        }
        return app.byteLength();
    }

    /** Decodes the chunk; returns a checksum of every timestamp and value. */
    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long iterate() {
        XorIterator it = iterator.reset(page, blockOffset, encodedLength, SAMPLES);
        long checksum = 0;
        while (it.next()) {
            checksum += it.timestampMs() ^ it.valueBits();
        }
        return checksum;
    }

    /** Compressed size of this shape, bytes per sample (chunk header included). */
    public double compressedBytesPerSample() {
        return (double) encodedLength / SAMPLES;
    }

    long[] timestampsMs() {
        return timestampsMs;
    }

    long[] valueBits() {
        return valueBits;
    }

    static void generate(String shape, long[] timestampsMs, long[] valueBits) {
        SplittableRandom random = new SplittableRandom(1);
        long t = START_MS;
        double v = START_VALUE;
        for (int i = 0; i < timestampsMs.length; i++) {
            switch (shape) {
                case "constant" -> t += 15_000;
                case "random-steps" -> {
                    t += random.nextInt(100) - 50 + 15_000;
                    v += random.nextInt(100) - 50;
                }
                case "random-0-1" -> {
                    t += random.nextInt(100) - 50 + 15_000;
                    v += random.nextInt(100) / 100.0;
                }
                case "regular-0-1" -> {
                    t += 15_000;
                    v += random.nextInt(100) / 100.0;
                }
                default -> throw new IllegalArgumentException("unknown shape " + shape);
            }
            timestampsMs[i] = t;
            valueBits[i] = Double.doubleToRawLongBits(v);
        }
    }
}
