package io.sluice.core.head.persist;

import static io.sluice.core.head.persist.ChunkFileDescriptor.CRC_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.ENTRY_HEADER_BYTES;
import static io.sluice.core.head.persist.ChunkFileDescriptor.FILE_HEADER_BYTES;

import io.sluice.core.chunk.ChunkMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Checks a shard's chunk files while it loads a checkpoint, without mapping them: each file is
 * read once, front to back, with positional reads into one {@value #READ_BYTES}-byte buffer
 * (not process RSS), and every entry's CRC is verified. The reads bypass the page cache
 * ({@code O_DIRECT}, {@link DirectReads}) where the file system allows it: the pass needs each
 * byte once, and filling the page cache with gigabytes of chunk files cost more system CPU than
 * the disk took to read them. The scan stops at the first
 * hole (zeros: the end of what was written) or at an entry whose length is impossible (nothing
 * after it can be found); an entry with a bad CRC is noted and skipped. A checkpoint's ref is sound
 * when an intact entry of its series starts there. Remembers per file only the entries' offsets,
 * series ids and sample counts (10 bytes per chunk) until {@link #close()}.
 *
 * <p>Threads: one (the shard thread during start).
 */
public final class ChunkFileSet implements AutoCloseable {
    /** Bytes per read: large reads keep several requests in flight on the device (direct reads are synchronous). */
    static final int READ_BYTES = 4 << 20;

    private final Path directory;
    private final boolean directReads;
    private final Map<Integer, Scan> scans = new HashMap<>();
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer; // allocated at the first scan
    private int filesReadDirect;

    /** Checks the chunk files of {@code directory}, read with {@code O_DIRECT} where the file system allows it. */
    public ChunkFileSet(Path directory) {
        this(directory, true);
    }

    /** As {@link #ChunkFileSet(Path)}; {@code directReads} false reads through the page cache (tests compare both). */
    ChunkFileSet(Path directory, boolean directReads) {
        this.directory = directory;
        this.directReads = directReads;
    }

    /** Files whose scan read every byte with {@code O_DIRECT} (none where the file system refuses it). */
    public int filesReadDirect() {
        return filesReadDirect;
    }

    /** Indexes of the chunk files in {@code directory}, ascending (empty if it does not exist). */
    public static TreeSet<Integer> list(Path directory) throws IOException {
        TreeSet<Integer> indexes = new TreeSet<>();
        if (Files.isDirectory(directory)) {
            try (Stream<Path> files = Files.list(directory)) {
                files.forEach(p -> {
                    int i = ChunkFileDescriptor.parseIndex(p.getFileName().toString());
                    if (i >= 0) {
                        indexes.add(i);
                    }
                });
            }
        }
        return indexes;
    }

    /**
     * Checks the chunk at {@code ref}: its file exists, an intact entry (CRC) starts there and it
     * belongs to {@code seriesId}. Returns null when it is sound, else why not (with file and position).
     */
    public String check(long ref, int seriesId) throws IOException {
        Scan scan = scan(ChunkFileDescriptor.fileIndex(ref));
        long at = ChunkFileDescriptor.offset(ref);
        if (scan.headerProblem != null) {
            return scan.headerProblem;
        }
        int i = scan.find(at);
        if (i >= 0) {
            return scan.series[i] == seriesId ? null
                    : "chunk file " + scan.path + " position " + at + ": chunk of series " + scan.series[i] + ", expected " + seriesId;
        }
        String damaged = scan.damagedEntries.get(at);
        if (damaged != null) {
            return damaged;
        }
        if (scan.problem != null && at >= scan.problemPosition) {
            return scan.problem;
        }
        if (at + ENTRY_HEADER_BYTES > scan.size) {
            return "chunk file " + scan.path + " ends (" + scan.size + " bytes) before the chunk at position " + at;
        }
        if (at >= scan.end) {
            return "chunk file " + scan.path + " position " + at + ": nothing was written there (written entries end at " + scan.end + ")";
        }
        return "chunk file " + scan.path + " position " + at + ": no chunk starts there";
    }

    /** Samples of the chunk at {@code ref}, which {@link #check} passed. */
    public int numSamples(long ref) throws IOException {
        Scan scan = scan(ChunkFileDescriptor.fileIndex(ref));
        return scan.samples[scan.find(ChunkFileDescriptor.offset(ref))] & 0xFFFF;
    }

    private Scan scan(int index) throws IOException {
        Scan scan = scans.get(index);
        if (scan == null) {
            scan = read(index);
            scans.put(index, scan);
        }
        return scan;
    }

    private Scan read(int index) throws IOException {
        Path path = ChunkFileDescriptor.path(directory, index);
        Scan scan = new Scan(path);
        if (!Files.isRegularFile(path)) {
            scan.headerProblem = "chunk file " + path + " is missing";
            return scan;
        }
        if (buffer == null) {
            buffer = DirectReads.buffer(READ_BYTES);
        }
        try (DirectReads reads = DirectReads.open(path, directReads)) {
            long size = reads.size();
            scan.size = size;
            ByteBuffer b = buffer;
            long bufferStart = 0;
            reads.fill(b, bufferStart);
            int readable = b.limit(); // bytes read into b; the CRC below moves the limit
            if (readable < FILE_HEADER_BYTES || b.getInt(0) != ChunkFileDescriptor.MAGIC) {
                scan.headerProblem = "chunk file " + path + " has no valid header (position 0)";
                return scan;
            }
            long at = FILE_HEADER_BYTES;
            while (true) {
                int rel = (int) (at - bufferStart);
                if (rel + ENTRY_HEADER_BYTES + ChunkMemory.MAX_BLOCK_BYTES > readable && bufferStart + readable < size) {
                    // refill from the aligned block holding this entry: an entry is never split across reads
                    bufferStart = at & -DirectReads.ALIGNMENT_BYTES;
                    reads.fill(b, bufferStart);
                    readable = b.limit();
                    rel = (int) (at - bufferStart);
                }
                if (rel + ENTRY_HEADER_BYTES > readable) {
                    break; // the file ends
                }
                int length = b.getInt(rel + ChunkFileDescriptor.LENGTH_OFFSET);
                if (length == 0 && b.getInt(rel + CRC_OFFSET) == 0) {
                    break; // a hole: nothing was written from here on
                }
                if (length < 1 || length > ChunkMemory.MAX_BLOCK_BYTES || rel + ENTRY_HEADER_BYTES + length > readable) {
                    scan.damaged(at, "chunk file " + path + " position " + at + ": chunk length " + length
                            + " is impossible or past the end");
                    break;
                }
                crc.reset();
                crc.update(b.limit(rel + CRC_OFFSET).position(rel));
                b.limit(b.capacity());
                crc.update(b.limit(rel + ENTRY_HEADER_BYTES + length).position(rel + ENTRY_HEADER_BYTES));
                b.limit(readable).position(0);
                int stored = b.getInt(rel + CRC_OFFSET);
                if ((int) crc.getValue() != stored) {
                    scan.damagedEntries.put(at, String.format("chunk file %s position %d: CRC32C mismatch (stored %08x, computed %08x)",
                            path, at, stored, (int) crc.getValue()));
                } else {
                    scan.add(at, b.getInt(rel + ChunkFileDescriptor.SERIES_ID_OFFSET),
                            b.getShort(rel + ChunkFileDescriptor.NUM_SAMPLES_OFFSET));
                }
                at += ChunkFileDescriptor.entryBytes(length);
            }
            scan.end = at;
            filesReadDirect += reads.isDirect() ? 1 : 0;
        }
        return scan;
    }

    @Override
    public void close() {
        scans.clear();
        buffer = null;
    }

    /** The intact entries of one file, in file order. */
    private static final class Scan {
        final Path path;
        String headerProblem;  // the file is missing or has no header: every ref into it is damaged
        String problem;        // the entry the scan stopped at, if its length was impossible
        final Map<Long, String> damagedEntries = new HashMap<>(); // entries with a bad CRC (skipped)
        long problemPosition = Long.MAX_VALUE;
        long end;              // where the scan stopped
        long size;             // the file's size
        int count;
        int[] offsets = new int[1024];
        int[] series = new int[1024];
        short[] samples = new short[1024];

        Scan(Path path) {
            this.path = path;
        }

        void add(long offset, int seriesId, short numSamples) {
            if (count == offsets.length) {
                offsets = Arrays.copyOf(offsets, count * 2);
                series = Arrays.copyOf(series, count * 2);
                samples = Arrays.copyOf(samples, count * 2);
            }
            offsets[count] = (int) offset;
            series[count] = seriesId;
            samples[count] = numSamples;
            count++;
        }

        void damaged(long at, String why) {
            problem = why;
            problemPosition = at;
        }

        /**
         * The index of the entry starting at {@code offset}, or -1. Entries are similar in size, so the
         * position is guessed from the file's average entry and the search gallops from there: a few
         * probes instead of a binary search's ~20 cache misses per chunk ref of a restore.
         */
        int find(long offset) {
            if (offset > Integer.MAX_VALUE || count == 0) {
                return -1;
            }
            int key = (int) offset;
            long span = (long) offsets[count - 1] - offsets[0];
            int guess = span <= 0 ? 0 : (int) Math.min(count - 1, Math.max(0, (key - (long) offsets[0]) * (count - 1) / span));
            int lo;
            int hi;
            if (offsets[guess] <= key) {
                lo = guess;
                int step = 1;
                hi = guess + step;
                while (hi < count && offsets[hi] <= key) {
                    lo = hi;
                    step <<= 1;
                    hi = guess + step;
                }
                hi = Math.min(hi, count);
            } else {
                hi = guess;
                int step = 1;
                lo = guess - step;
                while (lo > 0 && offsets[lo] > key) {
                    hi = lo;
                    step <<= 1;
                    lo = guess - step;
                }
                lo = Math.max(lo, 0);
            }
            return Math.max(-1, Arrays.binarySearch(offsets, lo, hi, key)); // offsets[lo] <= key < offsets[hi] when found
        }
    }
}
