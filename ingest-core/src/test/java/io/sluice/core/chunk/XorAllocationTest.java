package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Appending and iterating allocate nothing per sample once warm (bound: under 1 byte per sample,
 * measured with the thread's allocated-bytes counter, which does not depend on the machine's speed).
 * Blocks cycled through the chunk memory's free lists allocate nothing either, and the memory
 * returns to zero after close.
 */
class XorAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int SAMPLES_PER_CHUNK = 120;
    private static final int WARM_UP_ROUNDS = 30_000;
    private static final int MEASURED_ROUNDS = 5_000;

    private final ChunkFixture fixture = new ChunkFixture();
    private final ChunkMemory memory = fixture.memory;
    private final SampleShapes samples = SampleShapes.generate(11, SAMPLES_PER_CHUNK, SampleShapes.Timestamps.JITTERED, SampleShapes.Values.GAUGE);
    private final long block = memory.allocate(ChunkCutPolicy.MAX_OPEN_CAPACITY_BYTES);
    /** Results of the measured work, kept so it cannot be optimised away. */
    private long sink;

    @AfterEach
    void closeMemory() {
        fixture.close();
    }

    @Test
    void appendingAllocatesNothingPerSample() {
        assertUnderOneBytePerSample("appending", this::encodeChunk);
    }

    @Test
    void iteratingAllocatesNothingPerSample() {
        encodeChunk();
        assertUnderOneBytePerSample("iterating", this::decodeChunk);
    }

    @Test
    void cyclingBlocksThroughFreeListsAllocatesNothing() {
        long[] handles = new long[64];
        long allocated = allocatedBytes(() -> cycleBlocks(handles));
        assertThat(allocated).as("bytes allocated by %d block allocations", MEASURED_ROUNDS * handles.length)
                .isLessThan(MEASURED_ROUNDS);
    }

    private void assertUnderOneBytePerSample(String what, LongSupplier chunkRound) {
        long allocated = allocatedBytes(chunkRound);
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated %s %d samples", what, MEASURED_ROUNDS * SAMPLES_PER_CHUNK)
                .isLessThan((long) MEASURED_ROUNDS * SAMPLES_PER_CHUNK);
    }

    /** Bytes this thread allocates running {@code round} {@value #MEASURED_ROUNDS} times, after a warm-up. */
    private long allocatedBytes(LongSupplier round) {
        long result = 0;
        for (int i = 0; i < WARM_UP_ROUNDS; i++) {
            result += round.getAsLong();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED_ROUNDS; i++) {
            result += round.getAsLong();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        sink = result;
        return allocated;
    }

    private long encodeChunk() {
        XorStateDescriptor.reset(fixture.state, 0);
        XorAppender appender = fixture.wrap(block);
        for (int i = 0; i < SAMPLES_PER_CHUNK; i++) {
            appender.append(samples.timestampsMs[i], samples.valueBits[i]);
        }
        return appender.byteLength();
    }

    private long decodeChunk() {
        XorIterator iterator = fixture.iterator.reset(memory.page(block), ChunkMemory.offset(block), SAMPLES_PER_CHUNK);
        long sum = 0;
        while (iterator.next()) {
            sum += iterator.timestampMs() ^ iterator.valueBits();
        }
        return sum;
    }

    private long cycleBlocks(long[] handles) {
        for (int i = 0; i < handles.length; i++) {
            handles[i] = memory.allocate(16 + 16 * (i % 40));
        }
        for (long handle : handles) {
            memory.free(handle);
        }
        return handles[0];
    }
}
