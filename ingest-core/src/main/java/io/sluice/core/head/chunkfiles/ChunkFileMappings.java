package io.sluice.core.head.chunkfiles;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Read-only mappings of a shard's chunk files, by file index: how readers reach closed chunks
 * that live only on disk (Prometheus' mmapped head chunks). Each file is mapped whole, once, in
 * its own shared arena, so one file can be unmapped without touching the others. Pages read
 * through these mappings are page cache, reclaimable, and never written through a mapping.
 *
 * <p>Threads: the shard thread maps, retires and unmaps; any thread resolves {@link #segment}
 * (a volatile array, replaced on change, never mutated after publication). A reader that raced
 * an unmap gets an {@link IllegalStateException} from the segment access and retries; the shard
 * unmaps a deleted file only one checkpoint after nothing referenced it ({@link #retire},
 * {@link #unmapRetired}), so that race needs a reader stalled for a whole checkpoint interval.
 */
public final class ChunkFileMappings implements AutoCloseable {
    private volatile MemorySegment[] segments = new MemorySegment[0]; // by file index; null: not mapped
    private Arena[] arenas = new Arena[0];                           // shard thread
    private final List<Integer> retired = new ArrayList<>();         // shard thread: deleted at this checkpoint
    private final List<Integer> retiredBefore = new ArrayList<>();   // shard thread: deleted at the previous one

    /** Maps chunk file {@code index} at {@code path} (whole file, read-only) unless it is mapped. Shard thread. */
    public void map(int index, Path path) throws IOException {
        if (index < segments.length && segments[index] != null) {
            return;
        }
        Arena arena = Arena.ofShared();
        MemorySegment mapping;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
        if (index >= arenas.length) {
            arenas = Arrays.copyOf(arenas, Math.max(index + 1, arenas.length * 2));
        }
        arenas[index] = arena;
        MemorySegment[] grown = Arrays.copyOf(segments, Math.max(segments.length, arenas.length));
        grown[index] = mapping;
        segments = grown; // volatile write publishes the mapping
    }

    /** The mapping of chunk file {@code index}, or null if it is not mapped. Any thread. */
    public MemorySegment segment(int index) {
        MemorySegment[] s = segments;
        return index >= 0 && index < s.length ? s[index] : null;
    }

    /** Marks a deleted file: it stays mapped until the {@link #unmapRetired()} after the next one. Shard thread. */
    public void retire(int index) {
        if (segment(index) != null && !retired.contains(index) && !retiredBefore.contains(index)) {
            retired.add(index);
        }
    }

    /**
     * Unmaps the files retired before the previous call; those retired since wait for the next call.
     * Called once per checkpoint, before that checkpoint retires files. Shard thread.
     */
    public void unmapRetired() {
        for (int index : retiredBefore) {
            unmap(index);
        }
        retiredBefore.clear();
        retiredBefore.addAll(retired);
        retired.clear();
    }

    /**
     * Unmaps file {@code index} now: before a leftover file that nothing references is deleted and
     * created again under the same index (a mapping would keep showing the deleted file). Shard thread.
     */
    public void unmap(int index) {
        MemorySegment[] s = segments.clone();
        if (index >= s.length || s[index] == null) {
            return;
        }
        s[index] = null;
        segments = s; // readers stop finding it before the arena closes
        arenas[index].close();
        arenas[index] = null;
    }

    /** Files mapped now. Any thread. */
    public int mappedFiles() {
        int n = 0;
        for (MemorySegment m : segments) {
            n += m == null ? 0 : 1;
        }
        return n;
    }

    /** Unmaps everything; readers must be done. Shard thread. */
    @Override
    public void close() {
        segments = new MemorySegment[0];
        for (int i = 0; i < arenas.length; i++) {
            if (arenas[i] != null) {
                arenas[i].close();
                arenas[i] = null;
            }
        }
        retired.clear();
        retiredBefore.clear();
    }
}
