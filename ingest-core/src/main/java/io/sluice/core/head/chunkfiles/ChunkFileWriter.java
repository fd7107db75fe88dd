package io.sluice.core.head.chunkfiles;

import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.CRC_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.ENTRY_HEADER_BYTES;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.FILE_HEADER_BYTES;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.LENGTH_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.MAX_TIME_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.NUM_SAMPLES_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.SERIES_ID_OFFSET;

import io.sluice.core.chunk.ChunkMemory;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Appends cut chunks to a shard's current chunk file (see {@link ChunkFileDescriptor}) through a
 * reused direct buffer of {@value #BUFFER_BYTES} bytes, written with positional {@code write}
 * calls (pwrite) when it is full and on {@link #flush()}/{@link #sync()}/{@link #close()}; rolls
 * to the next file when one is full. Readers see the chunks through {@link ChunkFileMappings}
 * (read-only mappings of the same files) once they are flushed; until then the head reads them
 * from memory, and {@link FlushListener} tells it when it may let go. With a {@link ChunkOrder}
 * each write first puts its chunks in that order (the head's label order), so a chunk's ref is
 * final only once written: {@link #append} returns where it lies in the buffer, the listener where
 * it went.
 *
 * <p>Why not write through a mapping: pages dirtied through a mapping count in the process RSS,
 * and a write into a sparse hole of a full disk is a SIGBUS. A file is still created at its full
 * size but sparse (one byte at the end), never zero-filled: a full disk shows as an IOException
 * from the write, the buffer is kept and written again at the next flush.
 *
 * <p>Durability: nothing is forced until {@link #sync()}; the shard syncs before a checkpoint, so
 * a checkpoint only references chunks on disk. A crash loses unsynced entries, which nothing
 * durable references. No allocation per append.
 *
 * <p>Threads: the shard thread only (the listener runs on it too).
 */
public final class ChunkFileWriter implements AutoCloseable {
    /** Bytes buffered before a write: big enough to make the syscall cheap per chunk. */
    public static final int BUFFER_BYTES = 1 << 20;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_PENDING = BUFFER_BYTES / ChunkFileDescriptor.entryBytes(1) + 1;
    private static final int INDEX_BITS = 20; // MAX_PENDING < 2^20
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    private static final long UNRANKED = 1L << 31; // after every rank
    private static final int STEP = 32; // chunks per call of putInOrder's per-chunk passes (see there)

    /**
     * Told, on the shard thread, that chunks are in their file and readable through the mappings: once
     * per write of the buffer, with every chunk that write completed, each chunk exactly once; the
     * writes in append order (also across rolls, syncs and direct-write toggles), within one write the
     * chunks in file order (with a {@link ChunkOrder}, that order; else append order).
     *
     * <p>Why a batch: a call per chunk cost an interface call and a compile of its own for each of the
     * ~400,000 chunks per shard of a 100 M-sample replay; a batch is one call per 1 MiB written.
     */
    @FunctionalInterface
    public interface FlushListener {
        FlushListener NONE = (seriesIds, appendedAt, refs, count) -> { };

        /**
         * Chunks {@code seriesIds[i]} for {@code i < count} are written at {@code refs[i]};
         * {@code appendedAt[i]} is the ref {@link #append} returned for it (the same unless a
         * {@link ChunkOrder} moved it). The arrays are the writer's own: read them during the call only.
         */
        void flushed(int[] seriesIds, long[] appendedAt, long[] refs, int count);

        /** A listener told of one chunk at a time (tests, tools): {@code each} in the same order. */
        static FlushListener perChunk(ChunkFlushed each) {
            return (seriesIds, appendedAt, refs, count) -> {
                for (int i = 0; i < count; i++) {
                    each.flushed(seriesIds[i], refs[i]);
                }
            };
        }
    }

    /**
     * The order a write puts its chunks in: each series' rank (the head's label order), so that a
     * query reading series in label order reads each write's chunks front to back instead of
     * jumping about the file. Chunks of series without a rank follow the ranked ones in append order;
     * two chunks of one series keep their order. Called on the shard thread.
     */
    public interface ChunkOrder {
        /** The series' rank, or -1 if the order does not cover it (yet). */
        int rank(int seriesId);

        /** After ordering a write: {@code chunks} of its chunks had no rank. */
        void unranked(int chunks);
    }

    /** One chunk of a {@link FlushListener} batch. */
    @FunctionalInterface
    public interface ChunkFlushed {
        void flushed(int seriesId, long ref);
    }

    private final Path directory;
    private final long fileBytes;
    private final ChunkFileMappings mappings;
    private final FlushListener listener;
    private final ChunkOrder order; // null: chunks are written in append order
    // Aligned, so it can be written with O_DIRECT (direct writes, below). With an order, swapped with
    // the spare one each time a write's chunks are put in order (copied over in that order).
    private ByteBuffer buffer = DirectReads.buffer(BUFFER_BYTES);
    private ByteBuffer crcView = buffer.duplicate(); // positioned per entry for the CRC; no allocation
    private MemorySegment bufferSegment = MemorySegment.ofBuffer(buffer);
    private final CRC32C crc = new CRC32C();
    private int[] pendingSeries = new int[MAX_PENDING];
    private long[] pendingRefs = new long[MAX_PENDING];     // the refs append returned
    private int[] pendingEnds = new int[MAX_PENDING]; // buffer offset after each pending entry
    private int pending;
    // With an order only (else null): the spare buffer and arrays the chunks are put in order into.
    private ByteBuffer spare;
    private ByteBuffer spareCrcView;
    private MemorySegment spareSegment;
    private int[] spareSeries;
    private long[] spareRefs;
    private int[] spareEnds;
    private long[] sortKeys;    // rank << INDEX_BITS | pending index
    private long[] writtenRefs; // where each pending chunk is in the file, in buffer order
    private int keysUnranked;   // putInOrder's passes: chunks without a rank,
    private long keysOutOfOrder; // 1 if a key is below the one before it,
    private long lastKey;        // and the last key so far
    private boolean directWrites;  // requested; in effect while directChannel != null
    private FileChannel directChannel; // the current file opened with O_DIRECT, while direct writes are on
    private int buffered;          // bytes in the buffer, to go to the file at bufferStart
    private FileChannel channel;   // of the current file
    private long currentFileBytes; // its size (a continued file keeps the size it was created with)
    private int fileIndex;
    private long bufferStart;      // file offset of the buffer's first byte
    private long bufferLimit;      // buffered bytes beyond which append must flush or roll: min(buffer, rest of the file)
    private boolean dirty;         // written since the last force
    private long bytesWritten;
    private long chunksWritten;

    /**
     * Continues chunk file {@code fileIndex} at {@code offset} (a position a checkpoint recorded;
     * what lies after it is overwritten), creating the file if it does not exist, and maps it.
     */
    public ChunkFileWriter(Path directory, long fileBytes, int fileIndex, long offset, ChunkFileMappings mappings,
                           FlushListener listener) throws IOException {
        this(directory, fileBytes, fileIndex, offset, mappings, listener, null);
    }

    /**
     * As above; each write of the buffer puts its chunks in {@code order} first (null: append order).
     * Only writes through the page cache are ordered: direct writes ({@link #directWrites}) keep append order.
     */
    public ChunkFileWriter(Path directory, long fileBytes, int fileIndex, long offset, ChunkFileMappings mappings,
                           FlushListener listener, ChunkOrder order) throws IOException {
        if (fileBytes < ChunkFileDescriptor.MIN_FILE_BYTES || fileBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("chunk file size must be " + ChunkFileDescriptor.MIN_FILE_BYTES + ".."
                    + Integer.MAX_VALUE + " bytes, not " + fileBytes);
        }
        this.directory = directory;
        this.fileBytes = fileBytes;
        this.mappings = mappings;
        this.listener = listener;
        this.order = order;
        if (order != null) {
            spare = DirectReads.buffer(BUFFER_BYTES);
            spareCrcView = spare.duplicate();
            spareSegment = MemorySegment.ofBuffer(spare);
            spareSeries = new int[MAX_PENDING];
            spareRefs = new long[MAX_PENDING];
            spareEnds = new int[MAX_PENDING];
            sortKeys = new long[MAX_PENDING];
            writtenRefs = new long[MAX_PENDING];
        }
        Files.createDirectories(directory);
        open(fileIndex, Math.max(offset, FILE_HEADER_BYTES));
    }

    /**
     * Buffers one chunk: {@code length} XOR bytes at {@code source[sourceOffset]}; returns its ref.
     * May first write the full buffer (and tell the listener) or roll to a new file.
     *
     * @throws IOException if the buffer was full and could not be written, or a new file could not be
     *                     created (e.g. a full disk); this chunk was not taken, the buffer is kept
     */
    public long append(int seriesId, MemorySegment source, long sourceOffset, int length, long minTimeMs, long maxTimeMs,
                       int numSamples) throws IOException {
        int entryBytes = ChunkFileDescriptor.entryBytes(length);
        if (length < 1 || length > ChunkMemory.MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("chunk of " + length + " bytes is not a head chunk");
        }
        if (buffered + entryBytes > bufferLimit) {
            makeRoom(entryBytes);
        }
        int at = buffered;
        MemorySegment b = bufferSegment;
        b.set(INT, at + SERIES_ID_OFFSET, seriesId);
        b.set(INT, at + LENGTH_OFFSET, length);
        b.set(LONG, at + MIN_TIME_OFFSET, minTimeMs);
        b.set(LONG, at + MAX_TIME_OFFSET, maxTimeMs);
        b.set(INT, at + NUM_SAMPLES_OFFSET, numSamples & 0xFFFF); // the count's 2 bytes, then 2 zero bytes
        // The padding (at most ALIGNMENT - 1 bytes after the chunk): the entry's last 8 bytes are zeroed
        // first, the chunk's bytes then overwrite what of them is not padding. Entries are at least
        // 40 bytes, so those 8 bytes lie after the header.
        b.set(LONG, at + entryBytes - Long.BYTES, 0L);
        MemorySegment.copy(source, sourceOffset, b, at + ENTRY_HEADER_BYTES, length);
        crc.reset();
        crc.update(crcView.limit(at + CRC_OFFSET).position(at));
        crc.update(crcView.limit(at + ENTRY_HEADER_BYTES + length).position(at + ENTRY_HEADER_BYTES));
        b.set(INT, at + CRC_OFFSET, (int) crc.getValue());
        long ref = ChunkFileDescriptor.ref(fileIndex, bufferStart + at);
        pendingSeries[pending] = seriesId;
        pendingRefs[pending] = ref;
        buffered += entryBytes;
        pendingEnds[pending] = buffered;
        pending++;
        bytesWritten += entryBytes;
        chunksWritten++;
        return ref;
    }

    /**
     * Out of line, so the hot {@link #append} stays small and its one branch here was taken (by every
     * flush) before the JIT compiles it: a roll, first taken much later, does not deoptimise it.
     */
    private void makeRoom(int entryBytes) throws IOException {
        if (bufferStart + buffered + entryBytes > currentFileBytes) {
            roll();
        } else if (buffered + entryBytes > BUFFER_BYTES) {
            if (directChannel != null) {
                flushDirectPrefix();
            } else {
                flush();
            }
        }
    }

    /**
     * Direct writes: the buffer goes to the file with {@code O_DIRECT}, straight from this buffer to
     * the device, instead of being copied into the page cache. For the WAL replay of a restart, which
     * cuts and writes gigabytes of chunks nobody reads yet (queries wait for the head): on the test VM
     * the page-cache copy of 6.2 GB of chunks cost ~15 CPU-s of a 1 B-sample replay (fresh page-cache
     * pages are expensive to touch there), a quarter of all its CPU.
     *
     * <p>How: O_DIRECT writes whole aligned 4 KiB blocks from an aligned buffer. So while direct
     * writes are on, the buffer starts at a block boundary of the file ({@link #alignBufferStart}
     * reads back the bytes of the block before the continuation point); a write when the buffer is
     * full covers its whole blocks only and moves the bytes of the last, partial block to the front
     * (its chunks stay pending); {@link #flush}, {@link #sync} and a roll write everything, the last
     * block padded with zeros (what the file holds after the written end anyway), and keep that block
     * in the buffer, so the next write rewrites it with more chunks.
     *
     * <p>Readers must not read the file through the page cache while this rewrites its blocks (the
     * kernel may then fail to drop a cached copy): callers turn direct writes on only while no query
     * can run, and off (which writes everything) before. Where the file system refuses O_DIRECT, or
     * the file's size is not block-aligned, writes stay buffered. Shard thread.
     */
    public void directWrites(boolean on) throws IOException {
        if (on == directWrites) {
            return;
        }
        if (on) {
            directWrites = true;
            openDirect();
            return;
        }
        directWrites = false;
        if (directChannel != null) {
            try {
                flush(); // everything is in the file; the buffer keeps the last block's bytes
                long end = bufferStart + buffered;
                bufferStart = end;
                buffered = 0;
                buffer.clear();
                updateBufferLimit();
            } finally {
                // Off even if that write failed (a full disk): the buffer, from a block boundary, is written
                // through the page cache at the next flush (its first bytes again, unchanged).
                closeDirect();
            }
        }
    }

    /** Whether writes go to the file with O_DIRECT now. */
    public boolean writesDirect() {
        return directChannel != null;
    }

    private void openDirect() throws IOException {
        if (currentFileBytes % DirectReads.ALIGNMENT_BYTES != 0 || buffered != 0) {
            return; // unaligned file size (tests), or called with chunks buffered: stay buffered
        }
        try {
            directChannel = FileChannel.open(ChunkFileDescriptor.path(directory, fileIndex), StandardOpenOption.WRITE,
                    com.sun.nio.file.ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            directChannel = null; // the file system refuses O_DIRECT: buffered writes
            return;
        }
        alignBufferStart();
    }

    /** Reads back the bytes between the block boundary before bufferStart and bufferStart (already in the file). */
    private void alignBufferStart() throws IOException {
        int head = (int) (bufferStart % DirectReads.ALIGNMENT_BYTES);
        if (head == 0) {
            return;
        }
        long from = bufferStart - head;
        ByteBuffer in = buffer.clear().limit(head);
        while (in.hasRemaining()) {
            if (channel.read(in, from + in.position()) < 0) {
                break; // past the end: zeros (the buffer's bytes are written as they are)
            }
        }
        buffer.clear();
        bufferStart = from;
        buffered = head;
        updateBufferLimit();
    }

    private void closeDirect() throws IOException {
        FileChannel c = directChannel;
        directChannel = null;
        if (c != null) {
            c.close();
        }
    }

    /** Direct writes, buffer full: writes its whole blocks, keeps the partial last block's bytes (and chunks) pending. */
    private void flushDirectPrefix() throws IOException {
        int whole = buffered & -DirectReads.ALIGNMENT_BYTES;
        ByteBuffer out = buffer.limit(whole).position(0);
        while (out.hasRemaining()) {
            directChannel.write(out, bufferStart + out.position());
        }
        buffer.clear();
        dirty = true;
        int told = 0;
        while (told < pending && pendingEnds[told] <= whole) {
            told++;
        }
        listener.flushed(pendingSeries, pendingRefs, pendingRefs, told);
        int rest = pending - told;
        System.arraycopy(pendingSeries, told, pendingSeries, 0, rest);
        System.arraycopy(pendingRefs, told, pendingRefs, 0, rest);
        for (int i = 0; i < rest; i++) {
            pendingEnds[i] = pendingEnds[told + i] - whole;
        }
        pending = rest;
        shiftTail(whole);
    }

    /** Moves buffer bytes [from, buffered) to the front; the buffer then starts {@code from} bytes later in the file. */
    private void shiftTail(int from) {
        int tail = buffered - from;
        MemorySegment.copy(bufferSegment, from, bufferSegment, 0, tail);
        bufferStart += from;
        buffered = tail;
        updateBufferLimit();
    }

    /** Where the next chunk goes (a ref); a checkpoint records it so a restart continues there. */
    public long position() {
        return ChunkFileDescriptor.ref(fileIndex, bufferStart + buffered);
    }

    public int fileIndex() {
        return fileIndex;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long chunksWritten() {
        return chunksWritten;
    }

    /** Chunks buffered, not yet written to the file. */
    public int pendingChunks() {
        return pending;
    }

    /**
     * Writes the buffer to the file (no force) and tells the listener about each chunk in it.
     *
     * @throws IOException if the write failed (a full disk): the buffer is kept for the next try
     */
    public void flush() throws IOException {
        long[] refs = order != null && directChannel == null && pending > 0 ? putInOrder() : pendingRefs;
        write();
        int n = pending;
        pending = 0;
        listener.flushed(pendingSeries, pendingRefs, refs, n);
    }

    /**
     * Puts the buffered chunks in {@link #order} (copied into the spare buffer in that order, which
     * then becomes the buffer; the pending arrays follow) and returns where each will be in the file.
     * A write that then fails leaves them in this order; the next flush orders them again. No
     * allocation (an in-place heap sort of the keys). Not with direct writes: their buffer keeps
     * written bytes in front.
     *
     * <p>Shaped for the JIT (docs/design/jit.md): this runs once per 1 MiB write, each pass over
     * ~5,000 chunks. As plain loops here, their back-edges alone made them hot: compiled on stack
     * (OSR) at one loop, then another, then whole, and again after traps. Each pass is a loop over at
     * most {@link #STEP} chunks in a method of its own: C2's back-edge trigger (every 8,192 back-edges
     * past 40,000) then comes after its call-count trigger (every 1,024 calls), so each is compiled
     * by its calls, not on stack (at 64 chunks a step the back-edges still came first).
     */
    private long[] putInOrder() {
        int n = pending;
        if (pendingEnds[n - 1] != buffered) {
            return pendingRefs; // not only pending entries in the buffer (cannot happen without direct writes)
        }
        keysUnranked = 0;
        keysOutOfOrder = 0;
        lastKey = -1;
        for (int i = 0; i < n; i += STEP) {
            rankSome(i, Math.min(n, i + STEP));
        }
        if (keysUnranked > 0) {
            order.unranked(keysUnranked);
        }
        if (keysOutOfOrder != 0) {
            heapSort(sortKeys, n);
            int at = 0;
            for (int j = 0; j < n; j += STEP) {
                at = copySome(j, Math.min(n, j + STEP), at);
            }
            swapWithSpare();
        }
        for (int j = 0; j < n; j += STEP) {
            refsSome(j, Math.min(n, j + STEP));
        }
        return writtenRefs;
    }

    /** Sort keys {@code [from, to)}: each chunk's rank (unranked last) and index; counts the unranked and any key out of order. */
    private void rankSome(int from, int to) {
        int unranked = 0;
        long outOfOrder = 0;
        long previous = lastKey;
        for (int i = from; i < to; i++) {
            int rank = order.rank(pendingSeries[i]);
            unranked += rank >>> 31; // arithmetic: which side a branch takes shifts as the order catches up
            long key = (rank < 0 ? UNRANKED : rank) << INDEX_BITS | i;
            sortKeys[i] = key;
            outOfOrder |= key - previous; // negative (sign bit set) if below the previous
            previous = key;
        }
        keysUnranked += unranked;
        keysOutOfOrder |= outOfOrder >>> 63;
        lastKey = previous;
    }

    /** Copies the chunks of sorted keys {@code [from, to)} into the spare buffer from {@code at}; returns the offset after them. */
    private int copySome(int from, int to, int at) {
        MemorySegment source = bufferSegment;
        MemorySegment target = spareSegment;
        for (int j = from; j < to; j++) {
            int i = (int) (sortKeys[j] & INDEX_MASK);
            int start = i == 0 ? 0 : pendingEnds[i - 1];
            int length = pendingEnds[i] - start;
            MemorySegment.copy(source, start, target, at, length);
            at += length;
            spareSeries[j] = pendingSeries[i];
            spareRefs[j] = pendingRefs[i];
            spareEnds[j] = at;
        }
        return at;
    }

    /** Where the buffer's chunks {@code [from, to)} will be in the file. */
    private void refsSome(int from, int to) {
        for (int j = from; j < to; j++) {
            writtenRefs[j] = ChunkFileDescriptor.ref(fileIndex, bufferStart + (j == 0 ? 0 : pendingEnds[j - 1]));
        }
    }

    private void swapWithSpare() {
        ByteBuffer b = buffer;
        buffer = spare;
        spare = b;
        ByteBuffer v = crcView;
        crcView = spareCrcView;
        spareCrcView = v;
        MemorySegment s = bufferSegment;
        bufferSegment = spareSegment;
        spareSegment = s;
        int[] series = pendingSeries;
        pendingSeries = spareSeries;
        spareSeries = series;
        long[] refs = pendingRefs;
        pendingRefs = spareRefs;
        spareRefs = refs;
        int[] ends = pendingEnds;
        pendingEnds = spareEnds;
        spareEnds = ends;
    }

    /** Sorts {@code a[0, n)} ascending in place; the loops in steps of {@link #STEP}, as {@link #putInOrder}'s. */
    private static void heapSort(long[] a, int n) {
        for (int top = n / 2 - 1; top >= 0; top -= STEP) {
            heapify(a, top, Math.max(top - STEP, -1), n);
        }
        for (int end = n - 1; end > 0; end -= STEP) {
            popMax(a, end, Math.max(end - STEP, 0));
        }
    }

    /** Sifts down {@code a[i]} for {@code i} from {@code top} down to above {@code stop}. */
    private static void heapify(long[] a, int top, int stop, int n) {
        for (int i = top; i > stop; i--) {
            siftDown(a, i, n);
        }
    }

    /** Moves the heap's maximum to {@code a[end]}, for {@code end} down to above {@code stop}. */
    private static void popMax(long[] a, int end, int stop) {
        for (; end > stop; end--) {
            long top = a[0];
            a[0] = a[end];
            a[end] = top;
            siftDown(a, 0, end);
        }
    }

    private static void siftDown(long[] a, int i, int n) {
        long x = a[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && a[child + 1] > a[child]) {
                child++;
            }
            if (a[child] <= x) {
                break;
            }
            a[i] = a[child];
            i = child;
        }
        a[i] = x;
    }

    /** Writes the buffer (no force), keeping the pending list for the caller. */
    private void write() throws IOException {
        if (buffered == 0) {
            return;
        }
        if (directChannel != null) {
            writeDirectAll();
            return;
        }
        ByteBuffer out = buffer.limit(buffered).position(0);
        while (out.hasRemaining()) {
            channel.write(out, bufferStart + out.position());
        }
        dirty = true;
        bufferStart += buffered;
        buffered = 0;
        buffer.clear();
        updateBufferLimit();
    }

    /** Direct writes: the whole buffer, its last block padded with zeros; that block's bytes stay in front. */
    private void writeDirectAll() throws IOException {
        int padded = (buffered + DirectReads.ALIGNMENT_BYTES - 1) & -DirectReads.ALIGNMENT_BYTES;
        bufferSegment.asSlice(buffered, padded - buffered).fill((byte) 0);
        ByteBuffer out = buffer.limit(padded).position(0);
        while (out.hasRemaining()) {
            directChannel.write(out, bufferStart + out.position());
        }
        buffer.clear();
        dirty = true;
        shiftTail(buffered & -DirectReads.ALIGNMENT_BYTES);
    }

    /** Writes the buffer and forces the current file (earlier files were forced when rolled). */
    public void sync() throws IOException {
        flush();
        if (dirty) {
            channel.force(false);
            dirty = false;
        }
    }

    private void roll() throws IOException {
        sync();
        int next = fileIndex + 1;
        Path path = ChunkFileDescriptor.path(directory, next);
        mappings.unmap(next);       // a leftover of a crash after a restart point: nothing references it
        Files.deleteIfExists(path);
        createFile(path, next);
        closeDirect();
        channel.close();
        open(next, FILE_HEADER_BYTES);
        if (directWrites) {
            openDirect();
        }
    }

    private void open(int index, long startOffset) throws IOException {
        Path path = ChunkFileDescriptor.path(directory, index);
        if (!Files.exists(path)) {
            createFile(path, index);
        }
        FileChannel c = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = c.size();
            if (size < FILE_HEADER_BYTES + ChunkFileDescriptor.entryBytes(ChunkMemory.MAX_BLOCK_BYTES) || startOffset > size) {
                throw new IOException("chunk file " + path + " has " + size + " bytes, cannot continue at " + startOffset);
            }
            mappings.map(index, path);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        channel = c;
        currentFileBytes = c.size();
        fileIndex = index;
        bufferStart = startOffset;
        buffered = 0;
        buffer.clear();
        updateBufferLimit();
    }

    private void updateBufferLimit() {
        bufferLimit = Math.min(BUFFER_BYTES, currentFileBytes - bufferStart);
    }

    /** Writes a (sparse) file of {@code fileBytes} with its header, forced, then moves it into place. */
    private void createFile(Path path, int index) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.allocate(1), fileBytes - 1); // sets the size; the rest is a hole
            ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            header.putInt(ChunkFileDescriptor.MAGIC).put(ChunkFileDescriptor.VERSION).put((byte) 0).putShort((short) 0)
                    .putInt(index).putInt(0).flip();
            c.write(header, 0);
            c.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
        PersistFiles.syncDirectory(directory);
    }

    /**
     * Writes and forces what is buffered, without telling the listener (the head is closing: its
     * memory goes anyway). Best effort: unwritten chunks are not referenced by any checkpoint.
     */
    @Override
    public void close() {
        if (channel == null) {
            return;
        }
        try {
            write();
            pending = 0;
            channel.force(false);
        } catch (IOException e) {
            // nothing durable references the unwritten chunks; the WAL still holds their samples
        }
        try {
            closeDirect();
        } catch (IOException e) {
            // the data went through it and was forced through the other channel
        }
        try {
            channel.close();
        } catch (IOException e) {
            // closing a forced file: nothing to lose
        }
        channel = null;
    }
}
