package io.sluice.core.memory;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts off-heap bytes by {@link MemoryTag}. One instance per shard (or per owner); gauges sum
 * instances. Updates happen on allocation events, never per sample, so an atomic add is cheap
 * enough and keeps the counts exact when the reader is another thread (metrics, tests).
 */
public final class MemoryAccounting {
    private final AtomicLongArray bytesByTag = new AtomicLongArray(MemoryTag.all().length);

    /** Records that {@code bytes} were allocated for {@code tag}. */
    public void allocated(MemoryTag tag, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative allocation: " + bytes);
        }
        bytesByTag.getAndAdd(tag.ordinal(), bytes);
    }

    /** Records that {@code bytes} of {@code tag} were released. Releasing more than was allocated is a bug. */
    public void released(MemoryTag tag, long bytes) {
        long after = bytesByTag.addAndGet(tag.ordinal(), -bytes);
        if (after < 0) {
            throw new IllegalStateException("released more " + tag + " bytes than allocated: now " + after);
        }
    }

    /** Bytes currently held for {@code tag}; safe from any thread. */
    public long bytes(MemoryTag tag) {
        return bytesByTag.get(tag.ordinal());
    }

    /** Bytes currently held for all tags together. */
    public long totalBytes() {
        long total = 0;
        for (int i = 0; i < bytesByTag.length(); i++) {
            total += bytesByTag.get(i);
        }
        return total;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("MemoryAccounting{");
        for (MemoryTag tag : MemoryTag.all()) {
            sb.append(tag).append('=').append(bytes(tag)).append(tag.ordinal() < bytesByTag.length() - 1 ? ", " : "}");
        }
        return sb.toString();
    }
}
