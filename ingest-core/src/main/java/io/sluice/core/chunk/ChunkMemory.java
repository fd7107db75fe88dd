package io.sluice.core.chunk;

import io.sluice.core.memory.MemoryAccounting;
import io.sluice.core.memory.MemoryTag;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The off-heap memory of one shard's chunks: 1 MiB pages from one shared arena, carved into blocks
 * of 16-byte size classes (16..4096 bytes) with one free list per class.
 *
 * <p>Why 16-byte classes rather than powers of two: closed chunks are copied into the smallest block
 * that fits and then live for hours. 120 samples of realistic data take ~150-800 bytes; power-of-two
 * classes would waste ~25% of that on average, 16-byte classes waste at most 15 bytes (~1-5%). Open
 * chunks grow by copy through a few capacities ({@link ChunkCutPolicy#grownCapacityBytes}), so they use
 * a handful of the classes. A freed block only serves its own class (no splitting, no coalescing):
 * the head frees and allocates chunks of the same size mix at the same rate, so free lists refill
 * what they serve. A page's tail too small for a request goes to the free list of its size.
 *
 * <p>Blocks are addressed by a {@link ChunkHandle}; {@link #page(long)} resolves it from any thread
 * without allocating. Pages are never released before {@link #close()}, so a reader holding a stale
 * handle (its block freed and reused) reads garbage but never leaves mapped memory; the head detects
 * that with its own sequence numbers. A free block holds the next handle of its list in its first 8
 * bytes; an on-heap bitmap per page (one bit per 16-byte granule, 8 KiB per page) marks blocks in
 * use, so freeing a block twice fails loudly instead of corrupting a free list.
 *
 * <p>Accounting: every reserved page is counted under {@link MemoryTag#CHUNKS} until {@link #close()};
 * {@link #usedBytes()} tells how much of it blocks in use hold.
 *
 * <p>Threads: a single owner allocates and frees (the shard thread; the first thread that does so,
 * checked with {@code assert}). Any thread may resolve handles and read the counters. {@link #close()}
 * runs once the owner and all readers are done.
 */
public final class ChunkMemory implements AutoCloseable {
    public static final int PAGE_SIZE_BYTES = 1 << ChunkHandle.OFFSET_BITS;
    public static final int BLOCK_GRANULE_BYTES = 16;
    public static final int MAX_BLOCK_BYTES = 4096;

    private static final int PAGE_ALIGNMENT_BYTES = 4096;
    private static final ValueLayout.OfLong NEXT_FREE = ValueLayout.JAVA_LONG;
    private static final VarHandle USED_BYTES;

    static {
        try {
            USED_BYTES = MethodHandles.lookup().findVarHandle(ChunkMemory.class, "usedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Arena arena = Arena.ofShared();
    private final MemoryAccounting accounting;

    // Written by the owner, read by any thread. A page is stored before any handle into it is
    // handed out, so a reader that got a handle through a safe publication finds its page.
    private volatile MemorySegment[] pages = new MemorySegment[4];
    private volatile long reservedBytes;
    /**
     * Written by the owner with release (a plain store on x86: no fence per allocate/free, which a
     * volatile {@code +=} costs), read by any thread with acquire ({@link #USED_BYTES}).
     */
    private long usedBytes;

    // Owned by the owner thread.
    private final long[] freeListHeads = new long[MAX_BLOCK_BYTES / BLOCK_GRANULE_BYTES + 1];
    /** Per page, one bit per granule: set at the first granule of each block in use (8 KiB per page). */
    private long[][] inUse = new long[4][];
    private int pageCount;
    private int bumpOffset = PAGE_SIZE_BYTES;
    private Thread owner;
    private volatile boolean closed;

    public ChunkMemory(MemoryAccounting accounting) {
        this.accounting = accounting;
    }

    /**
     * A block of at least {@code capacityBytes} (rounded up to 16), contents undefined.
     *
     * @throws IllegalArgumentException if {@code capacityBytes} is not in 1..{@value #MAX_BLOCK_BYTES}
     */
    public long allocate(int capacityBytes) {
        assert isOwnerThread() : ownerMessage();
        ensureOpen();
        if (capacityBytes <= 0 || capacityBytes > MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("block of " + capacityBytes + " bytes outside 1.." + MAX_BLOCK_BYTES);
        }
        final int units = (capacityBytes + BLOCK_GRANULE_BYTES - 1) / BLOCK_GRANULE_BYTES;
        // An empty list is refilled with a carved block, then every block comes off the list: the branch
        // is "list empty", taken from the start (all lists are) and less often later, so the JIT's
        // profile holds both outcomes before it compiles this. (Branching between "pop" and "carve"
        // instead saw only "carve" until the first chunks were freed, a trap and a recompile later.)
        if (freeListHeads[units] == ChunkHandle.NONE) {
            pushFree(carve(units * BLOCK_GRANULE_BYTES));
        }
        final long handle = freeListHeads[units];
        freeListHeads[units] = page(handle).get(NEXT_FREE, ChunkHandle.offsetInPage(handle));
        if (!markInUse(handle)) {
            throw new IllegalStateException("free list handed out block " + ChunkHandle.toString(handle) + " that is in use");
        }
        USED_BYTES.setRelease(this, usedBytes + ChunkHandle.capacityBytes(handle));
        return handle;
    }

    /**
     * Returns a block to its free list. Readers may still read it (garbage) until the page is closed.
     *
     * @throws IllegalStateException if the block is not in use (freed twice, or never allocated)
     */
    public void free(long handle) {
        assert isOwnerThread() : ownerMessage();
        ensureOpen();
        final int pageIndex = ChunkHandle.pageIndex(handle);
        final int offset = ChunkHandle.offsetInPage(handle);
        final int capacity = ChunkHandle.capacityBytes(handle);
        if (pageIndex >= pageCount || capacity == 0 || offset % BLOCK_GRANULE_BYTES != 0
                || offset + capacity > PAGE_SIZE_BYTES) {
            throw new IllegalArgumentException("not a block of this memory: " + ChunkHandle.toString(handle));
        }
        if (!markFree(handle)) {
            throw new IllegalStateException("block " + ChunkHandle.toString(handle) + " is not in use: freed twice?");
        }
        pushFree(handle);
        USED_BYTES.setRelease(this, usedBytes - capacity);
    }

    /**
     * Copies the first {@code lengthBytes} of block {@code source} into a new block of at least
     * {@code capacityBytes}: an open chunk growing, or a closed chunk moving to the smallest block
     * that fits. The source stays allocated; the caller frees it when readers are told.
     */
    public long copy(long source, int lengthBytes, int capacityBytes) {
        if (lengthBytes < 0 || lengthBytes > capacityBytes || lengthBytes > ChunkHandle.capacityBytes(source)) {
            throw new IllegalArgumentException("cannot copy " + lengthBytes + " bytes of block "
                    + ChunkHandle.toString(source) + " into " + capacityBytes + " bytes");
        }
        final long target = allocate(capacityBytes);
        MemorySegment.copy(page(source), ChunkHandle.offsetInPage(source), page(target), ChunkHandle.offsetInPage(target), lengthBytes);
        return target;
    }

    /**
     * Whether {@code handle} names a block inside a page this memory has: a cheap test for a reader
     * that took a handle from memory the writer may have freed and reused meanwhile (it must then
     * retry instead of dereferencing it). Any thread.
     */
    public boolean isPlausible(long handle) {
        final int pageIndex = ChunkHandle.pageIndex(handle);
        final int capacity = ChunkHandle.capacityBytes(handle);
        return handle != ChunkHandle.NONE && pageIndex >= 0 && pageIndex < pages.length && capacity > 0
                && ChunkHandle.offsetInPage(handle) + (long) capacity <= PAGE_SIZE_BYTES;
    }

    /** The page holding the block; any thread. */
    public MemorySegment page(long handle) {
        return pages[ChunkHandle.pageIndex(handle)];
    }

    /** The block's byte offset in {@link #page(long)}. */
    public static long offset(long handle) {
        return ChunkHandle.offsetInPage(handle);
    }

    /** Bytes of pages reserved (what {@link MemoryTag#CHUNKS} counts); any thread. */
    public long reservedBytes() {
        return reservedBytes;
    }

    /** Bytes of blocks handed out and not freed; any thread. */
    public long usedBytes() {
        return (long) USED_BYTES.getAcquire(this);
    }

    public boolean isClosed() {
        return closed;
    }

    /** Releases every page; handles become invalid. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pages = new MemorySegment[0];
        arena.close();
        accounting.released(MemoryTag.CHUNKS, reservedBytes);
        reservedBytes = 0;
        USED_BYTES.setRelease(this, 0L);
        Arrays.fill(freeListHeads, ChunkHandle.NONE);
    }

    @Override
    public String toString() {
        return "ChunkMemory{pages=" + pageCount + ", reservedBytes=" + reservedBytes + ", usedBytes=" + usedBytes() + '}';
    }

    private long carve(int capacityBytes) {
        if (bumpOffset + capacityBytes > PAGE_SIZE_BYTES) {
            final int tailBytes = PAGE_SIZE_BYTES - bumpOffset;
            if (tailBytes >= BLOCK_GRANULE_BYTES) {
                pushFree(ChunkHandle.of(pageCount - 1, bumpOffset, tailBytes));
            }
            addPage();
        }
        final long handle = ChunkHandle.of(pageCount - 1, bumpOffset, capacityBytes);
        bumpOffset += capacityBytes;
        return handle;
    }

    private void addPage() {
        final MemorySegment page = arena.allocate(PAGE_SIZE_BYTES, PAGE_ALIGNMENT_BYTES);
        accounting.allocated(MemoryTag.CHUNKS, PAGE_SIZE_BYTES);
        MemorySegment[] current = pages;
        if (pageCount == current.length) {
            current = Arrays.copyOf(current, current.length * 2);
        }
        current[pageCount] = page;
        if (pageCount == inUse.length) {
            inUse = Arrays.copyOf(inUse, inUse.length * 2);
        }
        inUse[pageCount] = new long[PAGE_SIZE_BYTES / BLOCK_GRANULE_BYTES / Long.SIZE];
        pages = current;
        pageCount++;
        bumpOffset = 0;
        reservedBytes += PAGE_SIZE_BYTES;
    }

    /**
     * Sets the block's in-use bit; false if it was set (a free list handed out a block in use). One
     * method per direction: a shared one saw both outcomes of its test, each caller only one.
     */
    private boolean markInUse(long handle) {
        final long[] bits = this.inUse[ChunkHandle.pageIndex(handle)];
        final int granule = ChunkHandle.offsetInPage(handle) / BLOCK_GRANULE_BYTES;
        final long mask = 1L << granule;
        final long old = bits[granule >>> 6];
        bits[granule >>> 6] = old | mask;
        return (old & mask) == 0;
    }

    /** Clears the block's in-use bit; false if it was clear (freed twice, or never allocated). */
    private boolean markFree(long handle) {
        final long[] bits = this.inUse[ChunkHandle.pageIndex(handle)];
        final int granule = ChunkHandle.offsetInPage(handle) / BLOCK_GRANULE_BYTES;
        final long mask = 1L << granule;
        final long old = bits[granule >>> 6];
        bits[granule >>> 6] = old & ~mask;
        return (old & mask) != 0;
    }

    private void pushFree(long handle) {
        final int units = ChunkHandle.capacityBytes(handle) / BLOCK_GRANULE_BYTES;
        page(handle).set(NEXT_FREE, ChunkHandle.offsetInPage(handle), freeListHeads[units]);
        freeListHeads[units] = handle;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("chunk memory is closed");
        }
    }

    private boolean isOwnerThread() {
        final Thread current = Thread.currentThread();
        if (owner == null) {
            owner = current;
        }
        return owner == current;
    }

    private String ownerMessage() {
        return "chunk memory owned by " + owner + " used from " + Thread.currentThread();
    }
}
