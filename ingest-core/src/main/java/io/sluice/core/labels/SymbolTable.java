package io.sluice.core.labels;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Interns the UTF-8 label names and values of one shard to dense int ids 0, 1, 2, ... so that a
 * series holds ids instead of strings, and postings are keyed by id pairs.
 *
 * <p><b>Threads.</b> One writer, the shard thread, calls {@link #intern}; it allocates nothing when
 * the symbol exists. The table does not check which thread writes (the shard asserts that on its
 * own shard-only methods); two writers would corrupt it. Any number of reader threads (queries) call {@link #find}, {@link #string},
 * {@link #length}, {@link #bytesEqual}, {@link #compare}, {@link #copy} concurrently, without locks:
 * <ol>
 *   <li>Symbols are append-only: an id, once published, names the same bytes for the table's life.</li>
 *   <li>The writer stores a symbol's bytes, location and hash, then publishes {@code count} with
 *       release, then its hash-table slot with release. A reader that learned an id (from a
 *       published series, from {@link #find} or from {@link #count()}, all acquire reads) therefore
 *       sees the symbol's bytes.</li>
 *   <li>Growth is copy-on-grow: the writer fills a larger array, then publishes it through a
 *       volatile field; readers still holding the old array see a consistent, older state. Readers
 *       re-read the published arrays after each acquire, so they never look up an id in an array
 *       older than the id.</li>
 * </ol>
 *
 * <p><b>Memory</b> (on-heap, a few large arrays, so the GC sees few objects): the bytes in 1 MiB
 * pages (a symbol never spans pages; at most 64 KiB of a page's tail is unused), plus per symbol
 * a location (8 B), a hash (4 B) and 2 to 4 hash-table slots (8 to 16 B): 20 to 28 bytes per symbol
 * beyond its text. {@link #heapBytes()} reports the total. On-heap rather than off-heap because
 * {@code Arrays.equals}/{@code compareUnsigned} on byte[] are vectorized and the size is small next
 * to chunks (a million distinct symbols of 20 bytes is about 48 MB).
 */
public final class SymbolTable {
    /** Largest symbol, in bytes: a label name or value at the format maximum. */
    public static final int MAX_SYMBOL_BYTES = CanonicalLabels.MAX_VALUE_BYTES;
    static final int PAGE_SHIFT = 20;
    static final int PAGE_BYTES = 1 << PAGE_SHIFT;
    private static final int LENGTH_BITS = 16; // location = (page << 20 | offset) << 16 | length
    private static final int INITIAL_SYMBOLS = 1024;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle PUBLISHED_COUNT;

    static {
        try {
            PUBLISHED_COUNT = MethodHandles.lookup().findVarHandle(SymbolTable.class, "publishedCount", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Writer (shard thread) only: its own references, so the hit path reads no volatile field.
    private int[] table = new int[INITIAL_SYMBOLS * 2]; // id + 1 per slot, 0 = empty; load <= 1/2
    private long[] locations = new long[INITIAL_SYMBOLS];
    private int[] hashes = new int[INITIAL_SYMBOLS];
    private byte[][] pages = new byte[1][];
    private int count;
    private int pageCount;
    private int pageUsedBytes = PAGE_BYTES; // forces the first page on the first new symbol
    private long symbolBytes;

    // Published to readers: written by the writer after filling, read by readers with acquire.
    private volatile int[] publishedTable = table;
    private volatile long[] publishedLocations = locations;
    private volatile int[] publishedHashes = hashes;
    private volatile byte[][] publishedPages = pages;
    @SuppressWarnings("unused") // accessed through PUBLISHED_COUNT
    private int publishedCount;

    /**
     * The id of {@code b[off, off + len)}, adding it if new. Writer thread only. Allocation-free when
     * the symbol exists; a new symbol may grow the arrays or add a page.
     */
    public int intern(byte[] b, int off, int len) {
        if (len > MAX_SYMBOL_BYTES) {
            throw new IllegalArgumentException("symbol of " + len + " bytes exceeds " + MAX_SYMBOL_BYTES);
        }
        int h = hashOf(b, off, len);
        int[] t = table;
        int mask = t.length - 1;
        int i = h & mask;
        for (int slot = t[i]; slot != 0; slot = t[i]) {
            int id = slot - 1;
            if (hashes[id] == h && bytesEqual(pages, locations[id], b, off, len)) {
                return id;
            }
            i = (i + 1) & mask;
        }
        return add(b, off, len, h, i);
    }

    /** The id of {@code b[off, off + len)}, or -1 if it has not been published. Any thread. */
    public int find(byte[] b, int off, int len) {
        int h = hashOf(b, off, len);
        int[] t = publishedTable;
        int mask = t.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int slot = (int) SLOT.getAcquire(t, i);
            if (slot == 0) {
                return -1;
            }
            int id = slot - 1;
            if (publishedHashes[id] == h && bytesEqual(publishedPages, publishedLocations[id], b, off, len)) {
                return id;
            }
        }
    }

    /** {@link #find(byte[], int, int)} for a String (allocates its UTF-8 bytes). */
    public int find(String symbol) {
        byte[] b = symbol.getBytes(StandardCharsets.UTF_8);
        return find(b, 0, b.length);
    }

    /** Symbols published so far; ids {@code 0..count()-1} are readable. Any thread. */
    public int count() {
        return (int) PUBLISHED_COUNT.getAcquire(this);
    }

    /** The symbol as a String (allocates). Any thread. */
    public String string(int id) {
        long location = location(id);
        return new String(page(location), offsetInPage(location), length(location), StandardCharsets.UTF_8);
    }

    /** The symbol's length in bytes. Any thread. */
    public int length(int id) {
        return length(location(id));
    }

    /** Whether symbol {@code id} is exactly {@code b[off, off + len)}. Any thread. */
    public boolean bytesEqual(int id, byte[] b, int off, int len) {
        return bytesEqual(publishedPages, location(id), b, off, len);
    }

    /** Unsigned byte-wise order of two symbols (Go string order, as Prometheus sorts). Any thread. */
    public int compare(int idA, int idB) {
        long a = location(idA);
        long b = location(idB);
        return CanonicalLabels.compareBytes(page(a), offsetInPage(a), length(a), page(b), offsetInPage(b), length(b));
    }

    /** Copies symbol {@code id} to {@code dst[dstOff...]}; returns its length. Any thread. */
    public int copy(int id, byte[] dst, int dstOff) {
        long location = location(id);
        int len = length(location);
        System.arraycopy(page(location), offsetInPage(location), dst, dstOff, len);
        return len;
    }

    /** Bytes of symbol text stored. Any thread (a racy but monotonic estimate for gauges). */
    public long symbolBytes() {
        return symbolBytes;
    }

    /** Heap held: pages, per-symbol arrays and the hash table. Any thread (an estimate for gauges). */
    public long heapBytes() {
        long[] l = publishedLocations;
        byte[][] p = publishedPages;
        long pageBytes = 0;
        for (byte[] page : p) {
            pageBytes += page == null ? 0 : page.length;
        }
        return pageBytes + 8L * l.length + 4L * publishedHashes.length + 4L * publishedTable.length
                + 8L * p.length;
    }

    private int add(byte[] b, int off, int len, int h, int freeSlot) {
        int id = count;
        if (id == Integer.MAX_VALUE - 1) {
            throw new IllegalStateException("symbol table full: " + id + " symbols");
        }
        if (id == locations.length) {
            growIds();
        }
        long position = append(b, off, len);
        locations[id] = position << LENGTH_BITS | len;
        hashes[id] = h;
        count = id + 1;
        PUBLISHED_COUNT.setRelease(this, id + 1);
        if ((long) count * 2 > table.length) {
            rehash(table.length * 2);
        } else {
            SLOT.setRelease(table, freeSlot, id + 1);
        }
        return id;
    }

    /** Copies the bytes into the current page, or a new one; returns their global position. */
    private long append(byte[] b, int off, int len) {
        if (pageUsedBytes + len > PAGE_BYTES) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, pages.length * 2);
            }
            pages[pageCount++] = new byte[PAGE_BYTES];
            publishedPages = pages;
            pageUsedBytes = 0;
        }
        int page = pageCount - 1;
        System.arraycopy(b, off, pages[page], pageUsedBytes, len);
        long position = ((long) page << PAGE_SHIFT) | pageUsedBytes;
        pageUsedBytes += len;
        symbolBytes += len;
        return position;
    }

    private void growIds() {
        locations = Arrays.copyOf(locations, locations.length * 2);
        hashes = Arrays.copyOf(hashes, hashes.length * 2);
        publishedLocations = locations;
        publishedHashes = hashes;
    }

    private void rehash(int slots) {
        int[] t = new int[slots];
        int mask = slots - 1;
        for (int id = 0; id < count; id++) {
            int i = hashes[id] & mask;
            while (t[i] != 0) {
                i = (i + 1) & mask;
            }
            t[i] = id + 1;
        }
        table = t;
        publishedTable = t;
    }

    /** The published location of {@code id}; loud for an id never published (a caller's bug). */
    private long location(int id) {
        int published = count();
        if (id < 0 || id >= published) {
            throw new IllegalArgumentException("symbol id " + id + " not published (count " + published + ")");
        }
        return publishedLocations[id];
    }

    private byte[] page(long location) {
        return publishedPages[(int) (location >>> (LENGTH_BITS + PAGE_SHIFT))];
    }

    private static int offsetInPage(long location) {
        return (int) (location >>> LENGTH_BITS) & (PAGE_BYTES - 1);
    }

    private static int length(long location) {
        return (int) location & ((1 << LENGTH_BITS) - 1);
    }

    private static boolean bytesEqual(byte[][] pages, long location, byte[] b, int off, int len) {
        int at = offsetInPage(location);
        return length(location) == len
                && Arrays.equals(pages[(int) (location >>> (LENGTH_BITS + PAGE_SHIFT))], at, at + len, b, off, off + len);
    }

    private static int hashOf(byte[] b, int off, int len) {
        long h = MurmurHash3.hash64(b, off, len);
        return (int) (h ^ (h >>> 32));
    }
}
