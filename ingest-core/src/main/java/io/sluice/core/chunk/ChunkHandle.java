package io.sluice.core.chunk;

/**
 * The 64-bit address of a block in {@link ChunkMemory}: which page, where in it, and how big, so a
 * series stores one {@code long} per chunk and any thread can resolve it without a lookup.
 *
 * <pre>
 *  63      60 59                    29 28          20 19                       0
 *  +---------+------------------------+--------------+--------------------------+
 *  | 0       | page index (31 bits)   | size units   | offset in page (20 bits) |
 *  |         |                        | (9 bits)     | multiple of 16           |
 *  +---------+------------------------+--------------+--------------------------+
 * </pre>
 *
 * Size units are the block capacity in {@link ChunkMemory#BLOCK_GRANULE_BYTES}-byte granules,
 * 1..256; never 0, so no valid handle is {@link #NONE}. The offset field matches the 1 MiB
 * {@link ChunkMemory#PAGE_SIZE_BYTES}.
 */
public final class ChunkHandle {
    /** No block. */
    public static final long NONE = 0L;

    static final int OFFSET_BITS = 20;
    static final int UNITS_BITS = 9;
    static final int PAGE_SHIFT = OFFSET_BITS + UNITS_BITS;
    private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    private static final long UNITS_MASK = (1L << UNITS_BITS) - 1;

    private ChunkHandle() {
    }

    static long of(int pageIndex, int offsetInPage, int capacityBytes) {
        return ((long) pageIndex << PAGE_SHIFT)
                | ((long) (capacityBytes / ChunkMemory.BLOCK_GRANULE_BYTES) << OFFSET_BITS)
                | offsetInPage;
    }

    /** Index of the page holding the block. */
    public static int pageIndex(long handle) {
        return (int) (handle >>> PAGE_SHIFT);
    }

    /** Byte offset of the block in its page. */
    public static int offsetInPage(long handle) {
        return (int) (handle & OFFSET_MASK);
    }

    /** Capacity of the block in bytes. */
    public static int capacityBytes(long handle) {
        return (int) ((handle >>> OFFSET_BITS) & UNITS_MASK) * ChunkMemory.BLOCK_GRANULE_BYTES;
    }

    /** For messages: page/offset/capacity. */
    public static String toString(long handle) {
        return handle == NONE ? "none" : pageIndex(handle) + "/" + offsetInPage(handle) + "/" + capacityBytes(handle);
    }
}
