package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_CAPACITY_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_COUNT_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_BYTES;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_FILE_REF;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_HANDLE;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MAX_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MIN_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_LIST_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.XOR_STATE_OFFSET;

import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorChunkDescriptor;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileMappings;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The series' closed-chunk lists ({@link SeriesDescriptor}: {@code closedList}, {@code nClosed},
 * {@code capClsd}): entries {block handle, minTimeMs, maxTimeMs, chunk file ref}, oldest first, no
 * cap ({@link ClosedListAllocator}). A closed chunk keeps its memory block (the open block it was cut
 * from) until the chunk file writer has written it ({@link #flushed}); then readers copy it from the
 * read-only mapping of its file ({@link ChunkFileMappings}).
 *
 * <p>Threads: the shard thread changes lists, always under the series' sequence lock
 * ({@link SeriesSeqLock}); any thread reads ({@link #copyInRange}) and validates with that lock.
 */
final class ClosedChunkLists implements AutoCloseable {
    private static final int INITIAL_CAPACITY = 4;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfInt FILE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong FILE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle CLOSED_COUNT = INT.varHandle();

    private final ChunkMemory chunks;
    private final ClosedListAllocator lists;
    private long[] restoreTriples = new long[0]; // addByReference's staging until endRestore; shard thread
    private long[] restoreEntries = new long[0];
    private final ChunkFileMappings mappings = new ChunkFileMappings(); // mapped by the shard thread, read by any
    private final XorIterator lengthProbe = new XorIterator(); // persistAgain's decoder; shard thread

    ClosedChunkLists(ChunkMemory chunks, ClosedListAllocator lists) {
        this.chunks = chunks;
        this.lists = lists;
    }

    ChunkFileMappings mappings() {
        return mappings;
    }

    /**
     * Restore: appends {@code n} entries held by reference (no memory block: read through the
     * mappings), from {@code n} little-endian (chunkRef, minTimeMs, maxTimeMs) triples at
     * {@code src[at]} (a checkpoint's layout), growing the list once. Two bulk copies and a loop over
     * heap arrays rather than four memory accesses per chunk: a restore lists hundreds of thousands
     * of refs while most of this code still runs in the interpreter. Shard thread, under the
     * caller's sequence lock like {@link #add}.
     */
    void addByReference(MemorySegment s, long b, MemorySegment src, long at, int n) {
        if (n == 0) {
            return;
        }
        if (restoreTriples.length < 3 * n) {
            restoreTriples = new long[Math.max(3 * n, 2 * restoreTriples.length)];
            restoreEntries = new long[restoreTriples.length / 3 * 4];
        }
        long[] triples = restoreTriples;
        long[] entries = restoreEntries;
        MemorySegment.copy(src, FILE_LONG, at, triples, 0, 3 * n);
        for (int i = 0, t = 0, e = 0; i < n; i++, t += 3, e += 4) {
            entries[e + CLOSED_ENTRY_HANDLE / Long.BYTES] = ChunkHandle.NONE;
            entries[e + CLOSED_ENTRY_MIN_TIME / Long.BYTES] = triples[t + 1];
            entries[e + CLOSED_ENTRY_MAX_TIME / Long.BYTES] = triples[t + 2];
            entries[e + CLOSED_ENTRY_FILE_REF / Long.BYTES] = triples[t];
        }
        int count = s.get(INT, b + CLOSED_COUNT_OFFSET);
        long list = reserve(s, b, count + n);
        MemorySegment.copy(entries, 0, lists.segment(list), LONG, lists.offset(list) + (long) count * CLOSED_ENTRY_BYTES,
                n * (CLOSED_ENTRY_BYTES / Long.BYTES));
        CLOSED_COUNT.setRelease(s, b + CLOSED_COUNT_OFFSET, count + n);
    }

    /** After a restore: drops {@link #addByReference}'s staging arrays. Shard thread. */
    void endRestore() {
        restoreTriples = new long[0];
        restoreEntries = new long[0];
    }

    /**
     * Appends an entry to the series' closed list, growing it (no cap). Under the caller's sequence lock.
     *
     * <p>One method on purpose, with more bytecode than C2 inlines at a hot call site
     * ({@code FreqInlineSize}): the cut path
     * ({@code SeriesAppender.chunkStep}) calls it, and C2 compiles it on its own. Its growth branch is
     * decided per series (a series' 1st, 5th, 9th, 17th... chunk), so a compile made while the
     * replay cuts every series' first chunk sees only "grow". Inlined into the large cut path, the
     * trap for the other outcome may be compiled with action "none" (C2 does so once the inlined
     * methods' summed decompile counts pass {@code PerMethodRecompilationCutoff / 2}: ~40 inlined
     * memory-segment accesses, each with the JDK's own trap history, get there): every later cut
     * then deoptimises to the interpreter and the code is never recompiled (seen: 770,000 traps, a
     * 17 CPU-s restart instead of 5). Here, in a unit about half that size (the list's allocate, copy
     * and free inlined), the trap has so far always been compiled to recompile this method once; the
     * same rule could still pick "none" here, only less likely (a JVM-wide cure: the launchers'
     * -XX:PerMethodRecompilationCutoff=4000, docs/design/jit.md).
     */
    void add(MemorySegment s, long b, long chunk, long minTime, long maxTime, long fileRef) {
        if (chunk == ChunkHandle.NONE || maxTime < minTime) {
            throw new IllegalArgumentException("not a closed chunk: block " + ChunkHandle.toString(chunk)
                    + ", time range " + minTime + ".." + maxTime);
        }
        int n = s.get(INT, b + CLOSED_COUNT_OFFSET);
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        int capacity = s.get(INT, b + CLOSED_CAPACITY_OFFSET); // 0 while the series has no list
        if (n >= capacity) {
            int grown = Math.max(INITIAL_CAPACITY, Integer.highestOneBit(Math.max(1, n)) << 1); // grownCapacity(n + 1)
            long bigger = lists.allocate(grown);
            if (list != ChunkHandle.NONE) {
                MemorySegment.copy(lists.segment(list), lists.offset(list), lists.segment(bigger), lists.offset(bigger),
                        (long) n * CLOSED_ENTRY_BYTES);
                lists.free(list); // readers of the old list read garbage and retry: the sequence lock is odd
            }
            s.set(LONG, b + CLOSED_LIST_OFFSET, bigger);
            s.set(INT, b + CLOSED_CAPACITY_OFFSET, grown);
            list = bigger;
        }
        MemorySegment page = lists.segment(list);
        long e = lists.offset(list) + (long) n * CLOSED_ENTRY_BYTES;
        page.set(LONG, e + CLOSED_ENTRY_HANDLE, chunk);
        page.set(LONG, e + CLOSED_ENTRY_MIN_TIME, minTime);
        page.set(LONG, e + CLOSED_ENTRY_MAX_TIME, maxTime);
        page.set(LONG, e + CLOSED_ENTRY_FILE_REF, fileRef);
        CLOSED_COUNT.setRelease(s, b + CLOSED_COUNT_OFFSET, n + 1);
    }

    /** Room for {@code entries}: a power of two, at least {@link #INITIAL_CAPACITY}. */
    private static int grownCapacity(int entries) {
        return Math.max(INITIAL_CAPACITY, Integer.highestOneBit(Math.max(1, entries - 1)) << 1);
    }

    /**
     * {@link #addByReference}'s growth (restore; {@link #add} grows in line, see there): the series' list
     * with room for {@code entries}, moved to a bigger one if needed. Under the sequence lock.
     */
    private long reserve(MemorySegment s, long b, int entries) {
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        int capacity = s.get(INT, b + CLOSED_CAPACITY_OFFSET); // 0 while the series has no list
        if (entries <= capacity) {
            return list;
        }
        int grown = grownCapacity(entries);
        long bigger = lists.allocate(grown);
        if (list != ChunkHandle.NONE) {
            int n = s.get(INT, b + CLOSED_COUNT_OFFSET);
            MemorySegment.copy(lists.segment(list), lists.offset(list), lists.segment(bigger), lists.offset(bigger),
                    (long) n * CLOSED_ENTRY_BYTES);
            lists.free(list);
        }
        s.set(LONG, b + CLOSED_LIST_OFFSET, bigger);
        s.set(INT, b + CLOSED_CAPACITY_OFFSET, grown);
        return bigger;
    }


    /**
     * Copies the closed chunks overlapping [minTimeMs, maxTimeMs] into {@code into}; false if it met
     * a handle or ref that cannot be real (the list it read was freed and reused meanwhile — the
     * sequence check fails too, but the handle must not be dereferenced first). Any thread.
     */
    boolean copyInRange(MemorySegment s, long b, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        int closedCount = (int) CLOSED_COUNT.getAcquire(s, b + CLOSED_COUNT_OFFSET);
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        if (closedCount > 0 && list != ChunkHandle.NONE) {
            if (!lists.isPlausible(list)) {
                return false;
            }
            MemorySegment listPage = lists.segment(list);
            long o = lists.offset(list);
            int capacity = Math.min(closedCount, lists.capacityEntries(list));
            for (int i = 0; i < capacity; i++) {
                long e = o + (long) i * CLOSED_ENTRY_BYTES;
                long chunkMin = listPage.get(LONG, e + CLOSED_ENTRY_MIN_TIME);
                long chunkMax = listPage.get(LONG, e + CLOSED_ENTRY_MAX_TIME);
                if (chunkMax >= minTimeMs && chunkMin <= maxTimeMs) {
                    long handle = listPage.get(LONG, e + CLOSED_ENTRY_HANDLE);
                    if (handle == ChunkHandle.NONE) {
                        if (!copyMapped(listPage.get(LONG, e + CLOSED_ENTRY_FILE_REF), chunkMin, chunkMax, into)) {
                            return false;
                        }
                    } else if (chunks.isPlausible(handle)) {
                        into.addChunk(chunks.page(handle), ChunkMemory.offset(handle), ChunkHandle.capacityBytes(handle), -1);
                    } else {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /**
     * Copies a flushed chunk from its file's mapping, exact as written (its length and times known: no
     * decode to serve it); false if the ref cannot be real (a stale read: retry).
     */
    private boolean copyMapped(long ref, long minTimeMs, long maxTimeMs, SeriesSnapshot into) {
        MemorySegment file = mappings.segment(ChunkFileDescriptor.fileIndex(ref));
        long at = ChunkFileDescriptor.offset(ref);
        if (file == null || at < ChunkFileDescriptor.FILE_HEADER_BYTES || at + ChunkFileDescriptor.ENTRY_HEADER_BYTES > file.byteSize()) {
            return false;
        }
        int length = file.get(FILE_INT, at + ChunkFileDescriptor.LENGTH_OFFSET);
        long bytes = at + ChunkFileDescriptor.ENTRY_HEADER_BYTES;
        if (length < 1 || length > ChunkMemory.MAX_BLOCK_BYTES || bytes + length > file.byteSize()) {
            return false;
        }
        into.addExactChunk(file, bytes, length, minTimeMs, maxTimeMs);
        return true;
    }

    /**
     * The chunk file writer wrote the chunk of the series at {@code s}/{@code b} that it took at
     * {@code appendedAt} (the ref the list holds for it) at {@code ref} (the same, or where the
     * writer's order moved it): the entry gets its final ref, its memory block is freed and readers
     * read it from the mapping. Only entries that still have a block are looked at: a written
     * entry's ref may equal the ref an unwritten one was taken at. Nothing happens if the series no
     * longer lists it (evicted or expired meanwhile).
     */
    void flushed(MemorySegment s, long b, long appendedAt, long ref) {
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        if (list == ChunkHandle.NONE) {
            return;
        }
        MemorySegment listPage = lists.segment(list);
        long o = lists.offset(list);
        for (int i = s.get(INT, b + CLOSED_COUNT_OFFSET) - 1; i >= 0; i--) { // the newest entries first: most likely
            long e = o + (long) i * CLOSED_ENTRY_BYTES;
            long handle = listPage.get(LONG, e + CLOSED_ENTRY_HANDLE);
            if (handle != ChunkHandle.NONE && listPage.get(LONG, e + CLOSED_ENTRY_FILE_REF) == appendedAt) {
                int seq = SeriesSeqLock.begin(s, b);
                listPage.set(LONG, e + CLOSED_ENTRY_FILE_REF, ref);
                listPage.set(LONG, e + CLOSED_ENTRY_HANDLE, ChunkHandle.NONE);
                chunks.free(handle);
                SeriesSeqLock.end(s, b, seq);
                return;
            }
        }
    }

    /**
     * Retention: drops the series' oldest closed chunks whose last sample is older than
     * {@code cutoffMs}; returns how many. The series' first time moves to what remains.
     */
    int dropExpired(MemorySegment s, long b, long cutoffMs) {
        int n = s.get(INT, b + CLOSED_COUNT_OFFSET);
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        if (n == 0) {
            return 0;
        }
        MemorySegment listPage = lists.segment(list);
        long o = lists.offset(list);
        int k = 0;
        while (k < n && listPage.get(LONG, o + (long) k * CLOSED_ENTRY_BYTES + CLOSED_ENTRY_MAX_TIME) < cutoffMs) {
            k++;
        }
        if (k == 0) {
            return 0;
        }
        int seq = SeriesSeqLock.begin(s, b);
        for (int i = 0; i < k; i++) {
            long handle = listPage.get(LONG, o + (long) i * CLOSED_ENTRY_BYTES + CLOSED_ENTRY_HANDLE);
            if (handle != ChunkHandle.NONE) {
                chunks.free(handle); // not flushed yet (a failed write): freed while readers must retry
            }
        }
        CLOSED_COUNT.setRelease(s, b + CLOSED_COUNT_OFFSET, n - k);
        MemorySegment.copy(listPage, o + (long) k * CLOSED_ENTRY_BYTES, listPage, o, (long) (n - k) * CLOSED_ENTRY_BYTES);
        long first = n > k ? listPage.get(LONG, o + CLOSED_ENTRY_MIN_TIME)
                : s.get(LONG, b + XOR_STATE_OFFSET + XorStateDescriptor.FIRST_TIMESTAMP_OFFSET);
        s.set(LONG, b + MIN_TIME_OFFSET, first);
        SeriesSeqLock.end(s, b, seq);
        return k;
    }

    /**
     * Hands closed chunk {@code index} of series {@code seriesId} (at {@code s}/{@code b}), which has no
     * chunk file ref yet (a failed write), to {@code sink} again and records the ref it returns (0:
     * failed again). The chunk's byte length is where its last sample ends (decoded). Shard thread.
     */
    long persistAgain(MemorySegment s, long b, int index, int seriesId, SeriesStore.ChunkSink sink) {
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        MemorySegment listPage = lists.segment(list);
        long e = lists.offset(list) + (long) index * CLOSED_ENTRY_BYTES;
        long handle = listPage.get(LONG, e + CLOSED_ENTRY_HANDLE);
        MemorySegment chunk = chunks.page(handle);
        long at = ChunkMemory.offset(handle);
        int n = XorChunkDescriptor.headerNumSamples(chunk, at);
        lengthProbe.reset(chunk, at, ChunkHandle.capacityBytes(handle), n);
        while (lengthProbe.next()) {
            // decode to the end: the chunk's byte length is where the last sample ends
        }
        int length = (int) ((lengthProbe.bitLength() + Byte.SIZE - 1) / Byte.SIZE);
        long ref = sink.persist(seriesId, chunk, at, length, listPage.get(LONG, e + CLOSED_ENTRY_MIN_TIME),
                listPage.get(LONG, e + CLOSED_ENTRY_MAX_TIME), n);
        listPage.set(LONG, e + CLOSED_ENTRY_FILE_REF, ref);
        return ref;
    }

    /** A field (CLOSED_ENTRY_*) of entry {@code index}. Shard thread. */
    long entry(MemorySegment s, long b, int index, int field) {
        long list = s.get(LONG, b + CLOSED_LIST_OFFSET);
        return lists.segment(list).get(LONG, lists.offset(list) + (long) index * CLOSED_ENTRY_BYTES + field);
    }

    /** Frees a list of {@code n} entries the series no longer points to, and their unwritten blocks. Shard thread. */
    void free(long list, int n) {
        if (list == ChunkHandle.NONE) {
            return;
        }
        MemorySegment listPage = lists.segment(list);
        for (int i = 0; i < n; i++) {
            long handle = listPage.get(LONG, lists.offset(list) + (long) i * CLOSED_ENTRY_BYTES + CLOSED_ENTRY_HANDLE);
            if (handle != ChunkHandle.NONE) {
                chunks.free(handle);
            }
        }
        lists.free(list);
    }

    /** Unmaps the chunk files; readers must be done. */
    @Override
    public void close() {
        mappings.close();
    }
}
