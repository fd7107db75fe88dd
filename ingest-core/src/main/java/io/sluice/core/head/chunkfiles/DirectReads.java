package io.sluice.core.head.chunkfiles;

import com.sun.nio.file.ExtendedOpenOption;
import io.sluice.wal.PageCacheResidency;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Positional reads of one file into an aligned buffer, with {@code O_DIRECT} where the file system
 * allows it, else through the page cache.
 *
 * <p>Why: the restart's CRC pass reads every chunk file once (gigabytes at 1 B samples) and needs
 * none of it afterwards; read through the page cache, each page is inserted, charged, copied and
 * later reclaimed, which cost ~2 system-CPU-s per GB here (session 3: 12 s of 21 s). Read with
 * {@code O_DIRECT}, the device writes straight into {@link #buffer(int)}'s memory: the page cache
 * is neither filled nor churned, and the mapping queries read through faults pages in as they
 * need them. (Dirty pages of the range are written back by the kernel before the read, so a file
 * still being written reads as it is on disk after that write-back: the same bytes.)
 *
 * <p>Ranges already cached: before each direct read the range's pages are looked up in the page
 * cache ({@link PageCacheResidency}, {@code mincore} on a mapping of the file that is never
 * touched); when at least half are there, the range is read through the page cache instead (a
 * memory copy rather than a disk read: a restart soon after a stop, or files just written, would
 * otherwise read hundreds of MB from disk that memory holds — at 100 M samples that made the restart
 * from a checkpoint 0.4 s slower than reading through the cache). {@link #isDirect()} is then false.
 *
 * <p>Fallback: when the file system refuses {@code O_DIRECT} (open fails, e.g. some tmpfs) or a
 * direct read fails or comes back short before the end of the file, the file is reopened without
 * it and that read is repeated, so the result never depends on the mode; {@link #isDirect()} says
 * which one is in use.
 *
 * <p>Threads: one at a time (the owner of the buffer).
 */
final class DirectReads implements AutoCloseable {
    /**
     * Alignment of positions, lengths and buffer addresses: the logical block size of every device
     * this runs on is at most this, and Linux requires only the logical block size.
     */
    static final int ALIGNMENT_BYTES = 4096;

    private final Path path;
    private FileChannel channel;
    private boolean direct;
    // With a direct channel: a read-only mapping to ask mincore with (never read), and a second channel
    // for ranges the page cache holds; both made at the first such question.
    private Arena mappingArena;
    private MemorySegment mapping;
    private FileChannel cachedChannel;
    private boolean readThroughCache;

    private DirectReads(Path path, FileChannel channel, boolean direct) {
        this.path = path;
        this.channel = channel;
        this.direct = direct;
    }

    /** Opens {@code path} for reading, with {@code O_DIRECT} if {@code tryDirect} and the file system takes it. */
    static DirectReads open(Path path, boolean tryDirect) throws IOException {
        if (tryDirect) {
            try {
                return new DirectReads(path, FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT), true);
            } catch (IOException | UnsupportedOperationException e) {
                // the file system refuses O_DIRECT: read through the page cache
            }
        }
        return new DirectReads(path, FileChannel.open(path, StandardOpenOption.READ), false);
    }

    /** A direct buffer of {@code bytes} (rounded up to the alignment) at an aligned address, little-endian. */
    static ByteBuffer buffer(int bytes) {
        int capacity = (bytes + ALIGNMENT_BYTES - 1) & -ALIGNMENT_BYTES;
        return ByteBuffer.allocateDirect(capacity + ALIGNMENT_BYTES).alignedSlice(ALIGNMENT_BYTES).limit(capacity)
                .slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** True while every read was {@code O_DIRECT} (none through the page cache). */
    boolean isDirect() {
        return direct && !readThroughCache;
    }

    long size() throws IOException {
        return channel.size();
    }

    /**
     * Reads file bytes [position, position + capacity) into {@code b} (a {@link #buffer(int)}), fewer
     * where the file ends; leaves them readable at [0, limit).
     *
     * @param position a multiple of {@link #ALIGNMENT_BYTES}
     */
    void fill(ByteBuffer b, long position) throws IOException {
        if (position % ALIGNMENT_BYTES != 0) {
            throw new IllegalArgumentException("unaligned read position " + position);
        }
        long size = channel.size();
        int wanted = (int) Math.max(0, Math.min(b.capacity(), size - position));
        FileChannel through = channel;
        if (direct) {
            if (mostlyCached(position, wanted, size)) {
                through = cachedChannel();
                readThroughCache = true;
            } else {
                try {
                    fillDirect(b, position, wanted);
                    return;
                } catch (IOException e) {
                    reopenBuffered(); // the retry below reads through the page cache; a real I/O error fails there too
                    through = channel;
                }
            }
        }
        b.clear().limit(wanted);
        while (b.hasRemaining() && through.read(b, position + b.position()) >= 0) {
            // a short read continues where it stopped
        }
        b.flip();
    }

    /** Whether at least half the pages of [position, position + length) are in the page cache (false if unknown). */
    private boolean mostlyCached(long position, int length, long size) throws IOException {
        if (length == 0 || !PageCacheResidency.isAvailable()) {
            return false;
        }
        if (mapping == null || mapping.byteSize() < Math.min(size, position + length)) {
            unmap(); // first question, or the file grew past the mapping
            mappingArena = Arena.ofConfined();
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, mappingArena);
        }
        long pages = (length + PageCacheResidency.PAGE_BYTES - 1) / PageCacheResidency.PAGE_BYTES;
        return 2 * PageCacheResidency.cachedPages(mapping, position, length) >= pages;
    }

    private FileChannel cachedChannel() throws IOException {
        if (cachedChannel == null) {
            cachedChannel = FileChannel.open(path, StandardOpenOption.READ);
        }
        return cachedChannel;
    }

    private void unmap() {
        if (mappingArena != null) {
            mappingArena.close();
            mappingArena = null;
            mapping = null;
        }
    }

    /** O_DIRECT: whole aligned blocks (the kernel stops at the end of the file). */
    private void fillDirect(ByteBuffer b, long position, int wanted) throws IOException {
        b.clear().limit((wanted + ALIGNMENT_BYTES - 1) & -ALIGNMENT_BYTES);
        while (b.position() < wanted) {
            int before = b.position();
            int n = channel.read(b, position + before);
            if (n < 0) {
                break; // the file shrank: what was read is what there is
            }
            if (n == 0 || b.position() < wanted && b.position() % ALIGNMENT_BYTES != 0) {
                throw new IOException("short O_DIRECT read of " + path + " at " + (position + before));
            }
        }
        int read = Math.min(b.position(), wanted);
        b.position(0).limit(read);
    }

    private void reopenBuffered() throws IOException {
        channel.close();
        channel = FileChannel.open(path, StandardOpenOption.READ);
        direct = false;
    }

    /** Closes the channels and unmaps; the thread that opened it (the mapping's arena is confined to it). */
    @Override
    public void close() throws IOException {
        unmap();
        try (FileChannel c = cachedChannel) {
            channel.close();
        }
    }
}
