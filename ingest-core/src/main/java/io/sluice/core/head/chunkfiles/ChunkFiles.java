package io.sluice.core.head.chunkfiles;

import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A shard's chunk files ({@code <shard>/chunks/}, docs/format/chunks.md): the writer that cut chunks
 * go to, the read-only mappings readers copy closed chunks from, and which files a checkpoint keeps.
 * The series store's chunk sink is {@link #persist}; a chunk that could not be written stays in
 * memory and is flagged ({@link #hasUnwritten()}) for the next checkpoint to write.
 *
 * <p>Threads: the shard thread only.
 */
public final class ChunkFiles implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChunkFiles.class.getName());

    private final int shardIndex;
    private final Path directory;
    private final long fileBytes;
    private final ChunkFileMappings mappings;
    private final ChunkFileWriter.FlushListener flushListener;
    private final ChunkFileWriter.ChunkOrder order;
    private final ShardStats stats;
    private ChunkFileWriter writer;
    private boolean unwritten;       // a cut chunk could not be written (disk full): the next checkpoint writes it

    /**
     * @param flushListener told of every chunk the writer wrote to its file (the store then frees
     *                      its memory block; readers use the mappings)
     * @param order         the order each write puts its chunks in (null: append order)
     */
    public ChunkFiles(int shardIndex, Path directory, long fileBytes, ChunkFileMappings mappings,
                      ChunkFileWriter.FlushListener flushListener, ChunkFileWriter.ChunkOrder order, ShardStats stats) {
        this.shardIndex = shardIndex;
        this.directory = directory;
        this.fileBytes = fileBytes;
        this.mappings = mappings;
        this.flushListener = flushListener;
        this.order = order;
        this.stats = stats;
    }

    public Path directory() {
        return directory;
    }

    /** The store's chunk sink: appends a cut chunk to the current chunk file. Never throws. */
    public long persist(int seriesId, MemorySegment page, long offset, int length, long minTimeMs, long maxTimeMs,
                        int numSamples) {
        try {
            long ref = writer.append(seriesId, page, offset, length, minTimeMs, maxTimeMs, numSamples);
            stats.increment(ShardStats.Counter.CHUNKS_PERSISTED);
            return ref;
        } catch (IOException e) {
            // Kept in memory; the next checkpoint writes it or fails (and keeps the WAL).
            stats.increment(ShardStats.Counter.CHUNK_WRITE_FAILURES);
            unwritten = true;
            return ChunkFileDescriptor.NO_REF;
        }
    }

    /** Whether a chunk could not be written since {@link #allWritten()} (the checkpoint writes them first). */
    public boolean hasUnwritten() {
        return unwritten;
    }

    /** Every chunk in memory is in a file again. */
    public void allWritten() {
        unwritten = false;
    }

    /**
     * WAL replay on: chunk files are written with O_DIRECT ({@link ChunkFileWriter#directWrites});
     * off (everything written) before the head takes queries. A failure is handled as a failed
     * chunk write: the chunks stay in memory and the next checkpoint writes them.
     */
    public void replayWrites(boolean on) {
        try {
            writer.directWrites(on);
        } catch (IOException e) {
            stats.increment(ShardStats.Counter.CHUNK_WRITE_FAILURES);
            unwritten = true;
        }
    }

    /** Forces what was written (a checkpoint is about to reference it). */
    public void sync() throws IOException {
        writer.sync();
    }

    /** Where the next chunk goes: a {@link ChunkFileDescriptor} position (file index, offset). */
    public long position() {
        return writer.position();
    }

    /** The index of the file being written. */
    public int fileIndex() {
        return writer.fileIndex();
    }

    /** Starts writing a new file after the newest one on disk. */
    public void startNewFile() throws IOException {
        writer = newWriter(nextFileIndex(), 0);
    }

    /** Continues writing at a checkpoint's chunk position, or in a new file if that file cannot be continued. */
    public void continueAt(long chunkPosition) throws IOException {
        try {
            writer = newWriter(ChunkFileDescriptor.fileIndex(chunkPosition), ChunkFileDescriptor.offset(chunkPosition));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "shard " + shardIndex + ": cannot continue chunk file at "
                    + ChunkFileDescriptor.toString(chunkPosition) + " (" + e.getMessage() + "); starting a new one");
            writer = newWriter(nextFileIndex(), 0);
        }
    }

    private ChunkFileWriter newWriter(int fileIndex, long offset) throws IOException {
        return new ChunkFileWriter(directory, fileBytes, fileIndex, offset, mappings, flushListener, order);
    }

    private int nextFileIndex() throws IOException {
        var indexes = ChunkFileSet.list(directory);
        return indexes.isEmpty() ? 0 : indexes.last() + 1;
    }

    /** Maps every chunk file on disk, so readers reach the closed chunks a loaded checkpoint lists. */
    public void mapAll() throws IOException {
        for (int index : ChunkFileSet.list(directory)) {
            try {
                mappings.map(index, ChunkFileDescriptor.path(directory, index));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "shard " + shardIndex + ": cannot map chunk file "
                        + ChunkFileDescriptor.path(directory, index) + ": " + e);
            }
        }
    }

    /**
     * Deletes the files below {@code keepFrom} (and never the one being written). Their mappings are
     * retired now and unmapped at the next call: no reader can still hold a ref into them by then.
     */
    public void deleteBefore(int keepFrom) throws IOException {
        int keep = Math.min(keepFrom, writer.fileIndex());
        mappings.unmapRetired();
        for (int index : ChunkFileSet.list(directory)) {
            if (index < keep) {
                Files.deleteIfExists(ChunkFileDescriptor.path(directory, index));
                mappings.retire(index);
            }
        }
    }

    public long bytesWritten() {
        return writer == null ? 0 : writer.bytesWritten();
    }

    @Override
    public void close() {
        if (writer != null) {
            writer.close();
        }
    }
}
