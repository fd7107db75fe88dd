package io.sluice.core.chunk;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * What the head does per append for one series, as the README describes it: the appender state
 * embedded in a (here one-series) struct, the open chunk's handle cached beside it, grow by copy
 * when the block is full, cut by {@link ChunkCutPolicy}, closed chunks copied to the smallest block.
 * Tests drive it to check the pieces fit together; it owns nothing but its struct.
 */
final class HeadChunkRecipe implements AutoCloseable {
    record ClosedChunk(long handle, int numSamples, int byteLength, long firstMs, long lastMs) {
    }

    private final ChunkMemory memory;
    private final long chunkRangeMs;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
    private final XorAppender appender = new XorAppender();
    private final List<ClosedChunk> closed = new ArrayList<>();
    private long openHandle = ChunkHandle.NONE;
    private long chunkEndMs;
    private int grows;

    HeadChunkRecipe(ChunkMemory memory, long chunkRangeMs) {
        this.memory = memory;
        this.chunkRangeMs = chunkRangeMs;
    }

    void append(long timestampMs, long valueBits) {
        if (openHandle == ChunkHandle.NONE) {
            openChunk(timestampMs);
        }
        wrapOpen();
        if (appender.numSamples() > 0
                && ChunkCutPolicy.mustCutBefore(timestampMs, appender.numSamples(), appender.byteLength(), chunkEndMs)) {
            cut();
            openChunk(timestampMs);
            wrapOpen();
        }
        if (!appender.append(timestampMs, valueBits)) {
            int length = appender.byteLength();
            long grown = memory.copy(openHandle, length, ChunkCutPolicy.grownCapacityBytes(appender.capacityBytes()));
            memory.free(openHandle);
            openHandle = grown;
            grows++;
            wrapOpen();
            if (!appender.append(timestampMs, valueBits)) {
                throw new AssertionError("grown block refused a sample at " + length + " bytes");
            }
        }
        chunkEndMs = ChunkCutPolicy.chunkEndAfterAppendMs(chunkEndMs, appender.numSamples(), appender.firstTimestampMs(), timestampMs);
    }

    /** Cuts the open chunk, if any, and returns every closed chunk in order. */
    List<ClosedChunk> finish() {
        if (openHandle != ChunkHandle.NONE) {
            wrapOpen();
            if (appender.numSamples() > 0) {
                cut();
            } else {
                memory.free(openHandle);
            }
            openHandle = ChunkHandle.NONE;
        }
        return closed;
    }

    int grows() {
        return grows;
    }

    private void openChunk(long timestampMs) {
        openHandle = memory.allocate(ChunkCutPolicy.INITIAL_OPEN_CAPACITY_BYTES);
        XorStateDescriptor.reset(state, 0);
        chunkEndMs = ChunkCutPolicy.chunkRangeEndMs(timestampMs, chunkRangeMs);
    }

    private void wrapOpen() {
        appender.wrap(state, 0, memory.page(openHandle), ChunkMemory.offset(openHandle), ChunkHandle.capacityBytes(openHandle));
    }

    private void cut() {
        int length = appender.byteLength();
        long compact = memory.copy(openHandle, length, ChunkCutPolicy.closedCapacityBytes(length));
        memory.free(openHandle);
        closed.add(new ClosedChunk(compact, appender.numSamples(), length, appender.firstTimestampMs(), appender.lastTimestampMs()));
        openHandle = ChunkHandle.NONE;
    }

    @Override
    public void close() {
        arena.close();
    }
}
