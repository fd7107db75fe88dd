package io.sluice.core.head.checkpoint;

import static io.sluice.core.head.series.SeriesDescriptor.CHUNK_END_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_COUNT_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_FILE_REF;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MAX_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MIN_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.LABELS_LENGTH_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MAX_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.OPEN_CHUNK_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.XOR_STATE_OFFSET;

import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.chunk.XorStateDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileSet;
import io.sluice.core.head.series.SeriesStore;
import io.sluice.core.labels.MurmurHash3;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One series in a checkpoint's SERIES block (docs/format/checkpoint.md):
 *
 * <pre>
 *  series := id:u32 | labelsLength:u32 | labels | minTimeMs:i64 | maxTimeMs:i64 | chunkEndMs:i64
 *          | closedCount:u32 | (chunkRef:u64 minTimeMs:i64 maxTimeMs:i64) * closedCount
 *          | openCapacity:u32 | openLength:u32
 *          | (lastTsMs:i64 lastValueBits:i64 lastDeltaMs:i64 firstTsMs:i64 cursor:i64 openBytes[openLength])?  if openCapacity > 0
 * </pre>
 *
 * Closed chunks are referenced in the chunk files, with their time range so that a restart lists
 * them without reading the files (version 2); the open chunk travels whole with its appender
 * state, so appends after a restart continue bit for bit. Shard thread only.
 */
final class CheckpointSeriesCodec {
    private long restoredSamples;      // open chunks' samples; shard thread, during restore
    private long checkedClosedSamples; // closed chunks' samples of the checkpoint being checked; shard thread
    private long[] checkEntries = new long[0]; // check's copy of one record's chunk triples; shard thread
    private static final ValueLayout.OfLong FIELD = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfLong FILE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle CURSOR = ValueLayout.JAVA_LONG.varHandle();
    private static final int XOR_STATE_LONGS = XorStateDescriptor.SIZE / Long.BYTES;
    /** A closed chunk in a series record: chunkRef, minTimeMs, maxTimeMs. */
    private static final int CLOSED_ENTRY_BYTES = 3 * Long.BYTES;

    private final SeriesStore store;
    private byte[] labels = new byte[1024];

    CheckpointSeriesCodec(SeriesStore store) {
        this.store = store;
    }

    /** Writes live series {@code id}; every closed chunk must have a chunk file ref. Returns the lowest chunk file it references (or MAX_VALUE). */
    int write(int id, CheckpointWriter out) {
        MemorySegment s = store.struct(id);
        long b = SeriesStore.structBase(id);
        int length = s.get(ValueLayout.JAVA_INT, b + LABELS_LENGTH_OFFSET);
        if (length > labels.length) {
            labels = new byte[Math.max(length, labels.length * 2)];
        }
        store.copyLabels(id, labels);
        out.putInt(id);
        out.putInt(length);
        out.putBytes(labels, 0, length);
        out.putLong(s.get(ValueLayout.JAVA_LONG, b + MIN_TIME_OFFSET));
        out.putLong(s.get(ValueLayout.JAVA_LONG, b + MAX_TIME_OFFSET));
        out.putLong(s.get(ValueLayout.JAVA_LONG, b + CHUNK_END_OFFSET));
        int n = s.get(ValueLayout.JAVA_INT, b + CLOSED_COUNT_OFFSET);
        out.putInt(n);
        int lowestFile = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            long ref = store.closedEntry(id, i, CLOSED_ENTRY_FILE_REF);
            if (ref == ChunkFileDescriptor.NO_REF) {
                throw new IllegalStateException("series " + id + " chunk " + i + " has no chunk file ref");
            }
            lowestFile = Math.min(lowestFile, ChunkFileDescriptor.fileIndex(ref));
            out.putLong(ref);
            out.putLong(store.closedEntry(id, i, CLOSED_ENTRY_MIN_TIME));
            out.putLong(store.closedEntry(id, i, CLOSED_ENTRY_MAX_TIME));
        }
        writeOpen(id, s, b, out);
        return lowestFile;
    }

    private void writeOpen(int id, MemorySegment s, long b, CheckpointWriter out) {
        long open = s.get(ValueLayout.JAVA_LONG, b + OPEN_CHUNK_OFFSET);
        if (open == ChunkHandle.NONE) {
            out.putInt(0);
            out.putInt(0);
            return;
        }
        int openLength = store.openByteLength(id);
        out.putInt(ChunkHandle.capacityBytes(open));
        out.putInt(openLength);
        for (int i = 0; i < XOR_STATE_LONGS; i++) {
            out.putLong(s.get(FIELD, b + XOR_STATE_OFFSET + (long) i * Long.BYTES));
        }
        ChunkMemory chunks = store.chunkMemory();
        out.putBytes(chunks.page(open), ChunkMemory.offset(open), openLength);
    }

    /** Starts checking a checkpoint with {@link #check}: its closed chunks' samples are counted from zero. */
    void startCheck() {
        checkedClosedSamples = 0;
    }

    /**
     * Checks a series record's chunk refs against the chunk files, without changing anything but a
     * count of their samples (restored by {@link #restore} without looking the refs up again).
     * Returns null if every chunk is sound, else the first problem (file and position).
     */
    String check(CheckpointReader in, ChunkFileSet files) throws IOException {
        int id = in.getInt();
        in.skip(in.getInt());
        in.skip(3 * Long.BYTES);
        int n = in.getInt();
        if (checkEntries.length < 3 * n) {
            checkEntries = new long[Math.max(3 * n, 2 * checkEntries.length)];
        }
        // One bulk copy of the (ref, minT, maxT) triples rather than a mapped read per ref (mostly interpreted at start).
        MemorySegment.copy(in.mapping(), FILE_LONG, in.skip(n * CLOSED_ENTRY_BYTES), checkEntries, 0, 3 * n);
        for (int i = 0; i < n; i++) {
            long ref = checkEntries[3 * i];
            String problem = files.check(ref, id);
            if (problem != null) {
                return problem; // the caller discards the whole checkpoint: the rest of the record is not needed
            }
            checkedClosedSamples += files.numSamples(ref); // the entry check just found: no second search
        }
        int capacity = in.getInt();
        int openLength = in.getInt();
        if (capacity > 0) {
            in.skip(XorStateDescriptor.SIZE + openLength);
        }
        return null;
    }

    /** After a restore (or a failed one): drops {@link #check}'s staging array. Shard thread. */
    void endCheck() {
        checkEntries = new long[0];
    }

    /**
     * Samples restored since the last call, then zero: the open chunks' and the closed chunks' the last
     * {@link #check} pass counted. Shard thread.
     */
    long takeRestoredSamples() {
        long n = restoredSamples + checkedClosedSamples;
        restoredSamples = 0;
        checkedClosedSamples = 0;
        return n;
    }

    /** Restores one series record (checked before with {@link #check}) into the shard. Returns its id. */
    int restore(CheckpointReader in, CheckpointTarget shard) {
        int id = in.getInt();
        while (store.count() < id) {
            shard.createEvictedPlaceholder();
        }
        int length = in.getInt();
        if (length > labels.length) {
            labels = new byte[Math.max(length, labels.length * 2)];
        }
        in.getBytes(labels, 0, length);
        int created = shard.createSeries(MurmurHash3.hash64(labels, 0, length), labels, 0, length);
        if (created != id) {
            throw new IllegalStateException("checkpoint series " + id + " restored as " + created);
        }
        MemorySegment s = store.struct(id);
        long b = SeriesStore.structBase(id);
        s.set(ValueLayout.JAVA_LONG, b + MIN_TIME_OFFSET, in.getLong());
        long maxTime = in.getLong();
        s.set(ValueLayout.JAVA_LONG, b + MAX_TIME_OFFSET, maxTime);
        s.set(ValueLayout.JAVA_LONG, b + CHUNK_END_OFFSET, in.getLong());
        store.noteRestoredMaxTime(maxTime);
        int n = in.getInt();
        store.restoreClosed(id, in.mapping(), in.skip(n * CLOSED_ENTRY_BYTES), n); // by reference: read through the mappings
        restoreOpen(id, in, s, b, store.chunkMemory());
        return id;
    }

    private void restoreOpen(int id, CheckpointReader in, MemorySegment s, long b, ChunkMemory chunks) {
        int capacity = in.getInt();
        int openLength = in.getInt();
        if (capacity == 0) {
            return;
        }
        long handle = chunks.allocate(capacity);
        long state = b + XOR_STATE_OFFSET;
        for (int i = 0; i < XOR_STATE_LONGS - 1; i++) {
            s.set(FIELD, state + (long) i * Long.BYTES, in.getLong());
        }
        long cursor = in.getLong();
        restoredSamples += XorStateDescriptor.numSamples(cursor);
        long at = in.skip(openLength);
        MemorySegment.copy(in.mapping(), at, chunks.page(handle), ChunkMemory.offset(handle), openLength);
        store.restoreOpen(id, handle);
        CURSOR.setRelease(s, state + XorStateDescriptor.CURSOR_OFFSET, cursor); // publishes the open chunk's samples last
    }
}
