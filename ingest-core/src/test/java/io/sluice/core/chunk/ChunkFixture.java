package io.sluice.core.chunk;

import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A shard's chunk parts for one test: chunk memory with its accounting, one state struct, one appender and iterator. */
final class ChunkFixture implements AutoCloseable {
    final MemoryAccounting accounting = new MemoryAccounting();
    final ChunkMemory memory = new ChunkMemory(accounting);
    final Arena arena = Arena.ofConfined();
    final MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
    final XorAppender appender = new XorAppender();
    final XorIterator iterator = new XorIterator();

    /** Wraps the appender on the fixture's state and the block {@code handle}. */
    XorAppender wrap(long handle) {
        return appender.wrap(state, 0, memory.page(handle), ChunkMemory.offset(handle), ChunkHandle.capacityBytes(handle));
    }

    /** Closes the memory and fails if any chunk byte is still counted. */
    @Override
    public void close() {
        arena.close();
        memory.close();
        if (accounting.bytes(MemoryTag.CHUNKS) != 0) {
            throw new AssertionError("CHUNKS bytes left after close: " + accounting);
        }
    }
}
