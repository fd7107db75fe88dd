package io.sluice.core.memory;

/**
 * What an off-heap byte is for. Every off-heap allocation of the head is counted under exactly one
 * tag, exported as a gauge per tag, and tests assert that each tag returns to zero after close.
 */
public enum MemoryTag {
    /** XOR chunk bytes: open chunks and closed (cut) chunks. */
    CHUNKS,
    /** Per-series structs: appender state, chunk lists, time bounds. */
    SERIES,
    /** Series registry: the open-addressing hash table and label references. */
    INDEX,
    /** Symbol table: interned label names and values. */
    SYMBOLS,
    /** Batches in flight between consumers and shard workers. */
    QUEUES;

    private static final MemoryTag[] VALUES = values();

    /** The tags, without the defensive copy of {@link #values()}. */
    static MemoryTag[] all() {
        return VALUES;
    }
}
