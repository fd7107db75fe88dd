package io.sluice.core.head.chunkfiles;

import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.ENTRY_HEADER_BYTES;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/**
 * Checks a shard's chunk files while it loads a checkpoint, without mapping them: each file is
 * read once and every entry's CRC verified ({@link ChunkFileScanner}: {@code O_DIRECT} reads,
 * since the pass needs each byte once and filling the page cache with gigabytes of chunk files
 * cost more system CPU than the disk took to read them). A checkpoint's ref is sound when an
 * intact entry of its series starts there. Remembers per file only the entries' offsets, series
 * ids and sample counts (10 bytes per chunk) until {@link #close()}.
 *
 * <p>Scanning ahead ({@link #scanningAhead}): a background thread scans every chunk file present,
 * in index order, while the owner verifies and walks the checkpoint; {@link #check} waits for the
 * file it needs. The pass is disk-bound, the checkpoint walk CPU-bound: they overlap. The results
 * are those of a scan on demand (same scanner, same files).
 *
 * <p>Threads: one owner (the shard thread during start) calls everything; the background thread
 * only scans and hands each result over through a future. {@link #close()} stops and joins it.
 */
public final class ChunkFileSet implements AutoCloseable {
    private final Path directory;
    private final boolean directReads;
    // Owner thread.
    private final Map<Integer, ChunkFileScan> scans = new HashMap<>();
    private ChunkFileScanner scanner; // for files not scanned ahead; created when first needed
    // Built before the background thread starts, then only read; the futures are completed by it.
    private final TreeMap<Integer, CompletableFuture<ChunkFileScan>> ahead = new TreeMap<>();
    private Thread background;
    private volatile boolean closed;
    private long lastCheckedRef = ChunkFileDescriptor.NO_REF; // owner: the last ref check passed, and its samples
    private int lastCheckedSamples;

    /** Checks the chunk files of {@code directory} on demand, read with {@code O_DIRECT} where the file system allows it. */
    public ChunkFileSet(Path directory) {
        this(directory, true);
    }

    /** As {@link #ChunkFileSet(Path)}; {@code directReads} false reads through the page cache (tests compare both). */
    ChunkFileSet(Path directory, boolean directReads) {
        this.directory = directory;
        this.directReads = directReads;
    }

    /** Checks the chunk files of {@code directory}, all of which a background thread starts scanning now. */
    public static ChunkFileSet scanningAhead(Path directory) throws IOException {
        return scanningAhead(directory, true);
    }

    static ChunkFileSet scanningAhead(Path directory, boolean directReads) throws IOException {
        ChunkFileSet set = new ChunkFileSet(directory, directReads);
        for (int index : list(directory)) {
            set.ahead.put(index, new CompletableFuture<>());
        }
        if (!set.ahead.isEmpty()) {
            set.background = Thread.ofPlatform().daemon().name("sluice-chunk-scan").start(set::scanAhead);
        }
        return set;
    }

    /** The background thread: scans every listed file in order, until closed. */
    private void scanAhead() {
        ChunkFileScanner own = new ChunkFileScanner(directReads);
        for (var entry : ahead.entrySet()) {
            if (closed) {
                entry.getValue().cancel(false);
                continue;
            }
            try {
                entry.getValue().complete(own.scan(ChunkFileDescriptor.path(directory, entry.getKey())));
            } catch (IOException | RuntimeException e) {
                entry.getValue().completeExceptionally(e); // thrown to the owner when it needs this file
            }
        }
    }

    /** Files whose scan (among those used so far) read every byte with {@code O_DIRECT}. Owner thread. */
    public int filesReadDirect() {
        int n = 0;
        for (ChunkFileScan scan : scans.values()) {
            n += scan.readDirect ? 1 : 0;
        }
        return n;
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
        ChunkFileScan scan = scan(ChunkFileDescriptor.fileIndex(ref));
        long at = ChunkFileDescriptor.offset(ref);
        if (scan.headerProblem != null) {
            return scan.headerProblem;
        }
        int i = scan.find(at);
        if (i >= 0) {
            if (scan.series[i] == seriesId) {
                lastCheckedRef = ref;
                lastCheckedSamples = scan.samples[i] & 0xFFFF;
                return null;
            }
            return "chunk file " + scan.path + " position " + at + ": chunk of series " + scan.series[i] + ", expected " + seriesId;
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

    /** Samples of the chunk at {@code ref}, which {@link #check} passed (right after that check: no search). */
    public int numSamples(long ref) throws IOException {
        if (ref == lastCheckedRef) {
            return lastCheckedSamples;
        }
        ChunkFileScan scan = scan(ChunkFileDescriptor.fileIndex(ref));
        return scan.samples[scan.find(ChunkFileDescriptor.offset(ref))] & 0xFFFF;
    }

    private ChunkFileScan scan(int index) throws IOException {
        ChunkFileScan scan = scans.get(index);
        if (scan == null) {
            CompletableFuture<ChunkFileScan> scanned = ahead.get(index);
            if (scanned != null) {
                scan = await(scanned);
            } else {
                if (scanner == null) {
                    scanner = new ChunkFileScanner(directReads);
                }
                scan = scanner.scan(ChunkFileDescriptor.path(directory, index));
            }
            scans.put(index, scan);
        }
        return scan;
    }

    private static ChunkFileScan await(CompletableFuture<ChunkFileScan> scanned) throws IOException {
        try {
            return scanned.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a chunk file's CRC pass");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw new IOException(io.getMessage(), io);
            }
            if (cause instanceof UncheckedIOException io) {
                throw new IOException(io.getMessage(), io);
            }
            throw new IllegalStateException("chunk file scan failed", cause);
        }
    }

    /** Stops the background scan (after the file it is in) and waits for it; forgets every result. Owner thread. */
    @Override
    public void close() {
        closed = true;
        if (background != null) {
            try {
                background.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // it stops by itself after its current file
            }
            background = null;
        }
        scans.clear();
        scanner = null;
    }
}
