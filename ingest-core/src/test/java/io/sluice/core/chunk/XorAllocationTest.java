package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
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
    private static final int WARM_UP_CHUNKS = 30_000;
    private static final int MEASURED_CHUNKS = 5_000;

    private final MemoryAccounting accounting = new MemoryAccounting();
    private final ChunkMemory memory = new ChunkMemory(accounting);
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
    private final XorAppender appender = new XorAppender();
    private final XorIterator iterator = new XorIterator();
    private final SampleShapes samples = SampleShapes.generate(11, SAMPLES_PER_CHUNK, SampleShapes.Timestamps.JITTERED, SampleShapes.Values.GAUGE);
    private final long block = memory.allocate(ChunkCutPolicy.MAX_OPEN_CAPACITY_BYTES);

    @AfterEach
    void closeMemory() {
        arena.close();
        memory.close();
        assertThat(accounting.bytes(MemoryTag.CHUNKS)).isZero();
        assertThat(memory.usedBytes()).isZero();
    }

    @Test
    void appendingAllocatesNothingPerSample() {
        long sink = 0;
        for (int i = 0; i < WARM_UP_CHUNKS; i++) {
            sink += encodeChunk();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED_CHUNKS; i++) {
            sink += encodeChunk();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isPositive();
        assertThat(allocated).as("bytes allocated appending %d samples", MEASURED_CHUNKS * SAMPLES_PER_CHUNK)
                .isLessThan((long) MEASURED_CHUNKS * SAMPLES_PER_CHUNK);
    }

    @Test
    void iteratingAllocatesNothingPerSample() {
        encodeChunk();
        long sink = 0;
        for (int i = 0; i < WARM_UP_CHUNKS; i++) {
            sink += decodeChunk();
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED_CHUNKS; i++) {
            sink += decodeChunk();
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated iterating %d samples", MEASURED_CHUNKS * SAMPLES_PER_CHUNK)
                .isLessThan((long) MEASURED_CHUNKS * SAMPLES_PER_CHUNK);
    }

    @Test
    void cyclingBlocksThroughFreeListsAllocatesNothing() {
        long[] handles = new long[64];
        for (int i = 0; i < WARM_UP_CHUNKS / 10; i++) {
            cycleBlocks(handles);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MEASURED_CHUNKS; i++) {
            cycleBlocks(handles);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by %d block allocations", MEASURED_CHUNKS * handles.length)
                .isLessThan(MEASURED_CHUNKS);
    }

    private int encodeChunk() {
        XorStateDescriptor.reset(state, 0);
        appender.wrap(state, 0, memory.page(block), ChunkMemory.offset(block), ChunkHandle.capacityBytes(block));
        for (int i = 0; i < SAMPLES_PER_CHUNK; i++) {
            appender.append(samples.timestampsMs[i], samples.valueBits[i]);
        }
        return appender.byteLength();
    }

    private long decodeChunk() {
        iterator.reset(memory.page(block), ChunkMemory.offset(block), SAMPLES_PER_CHUNK);
        long sum = 0;
        while (iterator.next()) {
            sum += iterator.timestampMs() ^ iterator.valueBits();
        }
        return sum;
    }

    private void cycleBlocks(long[] handles) {
        for (int i = 0; i < handles.length; i++) {
            handles[i] = memory.allocate(16 + 16 * (i % 40));
        }
        for (long handle : handles) {
            memory.free(handle);
        }
    }
}
