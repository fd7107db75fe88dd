package io.sluice.core.head;

import io.sluice.core.head.persist.CheckpointDescriptor;
import io.sluice.core.head.persist.CheckpointReader;
import io.sluice.core.head.persist.CheckpointWriter;
import io.sluice.core.head.persist.ChunkFileDescriptor;
import io.sluice.core.head.persist.ChunkFileSet;
import io.sluice.core.head.persist.ChunkFileWriter;
import io.sluice.core.head.persist.PersistFiles;
import io.sluice.wal.Wal;
import io.sluice.wal.WalPosition;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A shard's persisted state besides its WAL: the chunk files cut chunks go to, and the
 * checkpoints that let replay start near the WAL's end (docs/format/chunks.md, checkpoint.md).
 *
 * <p><b>Checkpoint</b> ({@link #write}): on the shard thread between batches. Chunks not yet in a
 * chunk file are written, the chunk file is forced, the WAL rolls to a new segment (so records
 * after the checkpoint decode without earlier segments: the WAL codec's state is per segment),
 * then every live series, the watermarks and both positions go to {@code checkpoint.<pos>.tmp},
 * which is forced and renamed. The two newest checkpoints are kept, with the WAL from the older
 * one's position and every chunk file either references: if the newest is damaged, the older one
 * still loads.
 *
 * <p><b>Start</b> ({@link #restore}): the newest checkpoint whose every block and every referenced
 * chunk passes its CRC is loaded, and replay starts at its position. The chunk files are checked
 * with positional reads ({@link ChunkFileSet}, by a background thread that starts when there is
 * a checkpoint to load, while the shard thread checks the checkpoint) and mapped read-only; closed chunks are listed by
 * reference, not copied. If none does: the whole WAL
 * is replayed when it still starts at segment 0; otherwise the shard's persisted data cannot be
 * rebuilt, so it is discarded, the shard starts empty with no watermarks, and the Kafka layer
 * consumes its partitions from the beginning again ({@link Head#discardedData()}); records other
 * shards hold are skipped by their watermarks.
 *
 * <p>Threads: the shard thread only.
 */
final class ShardCheckpoints implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShardCheckpoints.class.getName());

    private final Shard shard;
    private final ShardOptions options;
    private final SeriesStore store;
    private final ShardStats stats;
    private final StreamRegistry streams;
    private final Path shardDirectory;
    private final Path chunksDirectory;
    private final CheckpointSeriesCodec codec;
    private final Path refillMarker;
    private volatile boolean refilling;    // the marker exists; written by the shard thread, read by any
    private volatile long[] refillTarget;  // per stream id; null: not known
    private ChunkFileWriter chunkWriter;
    private boolean unwrittenChunks;       // a cut chunk could not be written (disk full): the next checkpoint writes it
    private long lastPosition = -1;        // the newest checkpoint and the lowest chunk file it references
    private int lastLowestFile = Integer.MAX_VALUE;
    private long previousPosition = -1;    // the one before it, kept as a fallback
    private int previousLowestFile = Integer.MAX_VALUE;

    ShardCheckpoints(Shard shard, ShardOptions options, SeriesStore store, ShardStats stats, StreamRegistry streams) {
        this.shard = shard;
        this.options = options;
        this.store = store;
        this.stats = stats;
        this.streams = streams;
        this.shardDirectory = options.shardDirectory();
        this.chunksDirectory = shardDirectory.resolve("chunks");
        this.codec = new CheckpointSeriesCodec(store);
        this.refillMarker = shardDirectory.resolve(REFILL_MARKER);
    }

    /**
     * The file that says "this shard discarded its data and Kafka is delivering it again": it outlives
     * restarts until the shard has caught up ({@link #endRefill()}), so a restart midway still consumes
     * from the shard's own watermark, not from the (higher) committed offset.
     */
    static final String REFILL_MARKER = "refill";

    /** Whether a refill started by an earlier discard is still going on (the marker file exists). */
    private boolean refilling() {
        return Files.exists(refillMarker);
    }

    /** See {@link Shard#isRefilling()}. Any thread. */
    boolean isRefilling() {
        return refilling;
    }

    /**
     * Sets what a refilling shard must reach before the refill counts as done: per stream id, the
     * highest watermark the other shards held when it started (what had been committed cannot be
     * above it). Any thread; checked at each checkpoint.
     */
    void refillUntil(long[] targetByStream) {
        refillTarget = targetByStream.clone();
    }

    /** After a checkpoint: if the shard reached its refill target, the marker goes (a failure keeps it for the next try). */
    void endRefillIfCaughtUp() {
        long[] target = refillTarget;
        if (!refilling || target == null) {
            return;
        }
        for (int s = 0; s < target.length; s++) {
            if (target[s] >= 0 && shard.appliedOffset(s) < target[s]) {
                return;
            }
        }
        try {
            Files.deleteIfExists(refillMarker);
            PersistFiles.syncDirectory(shardDirectory);
            refilling = false;
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "shard " + shard.index() + " could not delete " + refillMarker + ": " + e);
        }
    }

    // ---------------------------------------------------------------- chunk files

    /** The store's chunk sink: appends a cut chunk to the current chunk file. Never throws. */
    long persist(int seriesId, MemorySegment page, long offset, int length, long minTimeMs, long maxTimeMs, int numSamples) {
        try {
            long ref = chunkWriter.append(seriesId, page, offset, length, minTimeMs, maxTimeMs, numSamples);
            stats.increment(ShardStats.Counter.CHUNKS_PERSISTED);
            return ref;
        } catch (IOException e) {
            // Kept in memory; the next checkpoint writes it or fails (and keeps the WAL).
            stats.increment(ShardStats.Counter.CHUNK_WRITE_FAILURES);
            unwrittenChunks = true;
            return ChunkFileDescriptor.NO_REF;
        }
    }

    /**
     * WAL replay on: chunk files are written with O_DIRECT ({@link ChunkFileWriter#directWrites});
     * off (everything written) before the head takes queries. A failure is handled as a failed
     * chunk write: the chunks stay in memory and the next checkpoint writes them. Shard thread.
     */
    void replayWrites(boolean on) {
        try {
            chunkWriter.directWrites(on);
        } catch (IOException e) {
            stats.increment(ShardStats.Counter.CHUNK_WRITE_FAILURES);
            unwrittenChunks = true;
        }
    }

    // ---------------------------------------------------------------- checkpoint

    /** Writes a checkpoint; false (counted, logged) if it could not, in which case the WAL stays whole. */
    boolean write(Wal wal) {
        try {
            persistUnwritten();
            chunkWriter.sync();
            long position = wal.rollSegment();
            shard.sync();
            Path target = CheckpointDescriptor.path(shardDirectory, position);
            int lowest = Files.exists(target) ? lastLowestFile : writeFile(target, position);
            stats.increment(ShardStats.Counter.CHECKPOINTS_WRITTEN);
            cleanUp(wal, position, lowest);
            return true;
        } catch (IOException | RuntimeException e) {
            stats.increment(ShardStats.Counter.CHECKPOINT_FAILURES);
            LOG.log(System.Logger.Level.WARNING, "shard " + shard.index() + " could not checkpoint in " + shardDirectory
                    + " (the WAL is kept; retried later): " + e);
            return false;
        }
    }

    private void persistUnwritten() throws IOException {
        if (!unwrittenChunks) {
            return; // every cut chunk went to a chunk file (no pass over every series' chunks)
        }
        for (int id = 0; id < store.count(); id++) {
            if (store.isEvicted(id)) {
                continue;
            }
            int n = store.closedCount(id);
            for (int i = 0; i < n; i++) {
                if (store.closedRef(id, i) == ChunkFileDescriptor.NO_REF
                        && store.persistClosed(id, i) == ChunkFileDescriptor.NO_REF) {
                    throw new IOException("the chunk files of " + chunksDirectory + " take no more chunks");
                }
            }
        }
        unwrittenChunks = false; // only the first checkpoint after a failed write pays for the pass
    }

    private int writeFile(Path target, long position) throws IOException {
        int lowest = Integer.MAX_VALUE;
        int live = 0;
        try (CheckpointWriter out = new CheckpointWriter(target)) {
            out.beginBlock(CheckpointDescriptor.HEADER);
            out.putInt(CheckpointDescriptor.MAGIC);
            out.putByte(CheckpointDescriptor.VERSION);
            out.putByte(0);
            out.putShort(0);
            out.putInt(shard.index());
            out.putLong(position);
            out.putLong(chunkWriter.position());
            out.putInt(store.count());
            out.endBlock();
            writeStreams(out);
            out.beginBlock(CheckpointDescriptor.SERIES);
            for (int id = 0; id < store.count(); id++) {
                if (store.isEvicted(id)) {
                    continue;
                }
                lowest = Math.min(lowest, codec.write(id, out));
                live++;
                if (out.blockPayloadBytes() >= CheckpointDescriptor.SERIES_BLOCK_BYTES) {
                    out.endBlock();
                    out.beginBlock(CheckpointDescriptor.SERIES);
                }
            }
            out.endBlock();
            out.beginBlock(CheckpointDescriptor.END);
            out.putInt(live);
            out.putInt(lowest == Integer.MAX_VALUE ? chunkWriter.fileIndex() : lowest);
            out.endBlock();
            out.commit();
        }
        return lowest == Integer.MAX_VALUE ? chunkWriter.fileIndex() : lowest;
    }

    private void writeStreams(CheckpointWriter out) throws IOException {
        out.beginBlock(CheckpointDescriptor.STREAMS);
        int known = shard.knownStreams();
        int n = 0;
        for (int s = 0; s < known; s++) {
            if (shard.appliedOffset(s) >= 0) {
                n++;
            }
        }
        out.putInt(n);
        for (int s = 0; s < known; s++) {
            long applied = shard.appliedOffset(s);
            if (applied >= 0) {
                StreamRegistry.Stream stream = streams.stream(s);
                out.putShort(stream.topicUtf8().length);
                out.putBytes(stream.topicUtf8(), 0, stream.topicUtf8().length);
                out.putInt(stream.partition());
                out.putLong(applied);
            }
        }
        out.endBlock();
    }

    /** Keeps the two newest checkpoints, the WAL from the older one, and the chunk files either references. */
    private void cleanUp(Wal wal, long position, int lowestFile) throws IOException {
        if (lastPosition >= 0 && lastPosition != position) {
            previousPosition = lastPosition;
            previousLowestFile = lastLowestFile;
        }
        lastPosition = position;
        lastLowestFile = lowestFile;
        for (long p : list().keySet()) {
            if (p != lastPosition && p != previousPosition) {
                Files.deleteIfExists(CheckpointDescriptor.path(shardDirectory, p));
            }
        }
        if (previousPosition >= 0) {
            wal.deleteSegmentsBefore(previousPosition); // with one checkpoint only, the whole WAL is its fallback
        }
        int keepFrom = Math.min(Math.min(lastLowestFile, previousLowestFile), chunkWriter.fileIndex());
        store.mappings().unmapRetired(); // deleted at the previous checkpoint: no reader can still hold a ref into them
        for (int index : ChunkFileSet.list(chunksDirectory)) {
            if (index < keepFrom) {
                Files.deleteIfExists(ChunkFileDescriptor.path(chunksDirectory, index));
                store.mappings().retire(index);
            }
        }
    }

    /** Complete checkpoint files by WAL position; leftovers of interrupted writes are deleted. */
    private TreeMap<Long, Path> list() throws IOException {
        TreeMap<Long, Path> found = new TreeMap<>();
        try (Stream<Path> files = Files.list(shardDirectory)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                long position = CheckpointDescriptor.parsePosition(name);
                if (position >= 0) {
                    found.put(position, p);
                } else if (name.startsWith(CheckpointDescriptor.PREFIX) && name.endsWith(CheckpointDescriptor.TMP_SUFFIX)) {
                    Files.deleteIfExists(p);
                }
            }
        }
        return found;
    }

    // ---------------------------------------------------------------- start

    /** Gives the shard's WAL with every segment read, for when the newest checkpoint cannot be used. */
    @FunctionalInterface
    interface WalReopener {
        Wal reopenScanningAll() throws IOException;
    }

    /**
     * The WAL position of the newest complete checkpoint file, or {@link WalPosition#NONE}: the shard
     * opens its WAL without reading the segments before it ({@link Wal#open(io.sluice.wal.WalOptions, long)}).
     * Whether the file is sound is decided later, by {@link #restore}. Before restore.
     */
    long newestPosition() throws IOException {
        if (!Files.isDirectory(shardDirectory)) {
            return WalPosition.NONE;
        }
        TreeMap<Long, Path> found = list();
        return found.isEmpty() ? WalPosition.NONE : found.lastKey();
    }

    /**
     * Loads the newest sound checkpoint (or decides there is none); returns where WAL replay starts.
     * Before replay. {@code wal} may have skipped the segments before the newest checkpoint; if that one
     * is damaged, {@code reopener} reads them before the older checkpoint or the whole WAL is relied on.
     */
    RestoreReport restore(Wal wal, WalReopener reopener) throws IOException {
        Files.createDirectories(shardDirectory);
        RestoreReport report = choose(wal, reopener);
        refilling = report.discardedData();
        return report;
    }

    private RestoreReport choose(Wal opened, WalReopener reopener) throws IOException {
        Wal wal = opened;
        List<String> damage = new ArrayList<>();
        long loaded = -1;
        mapChunkFiles();
        TreeMap<Long, Path> candidates = list();
        // With a checkpoint to check, its chunk files' CRC pass (disk-bound) starts now, beside the checkpoint's own (CPU)
        try (ChunkFileSet files = candidates.isEmpty() ? new ChunkFileSet(chunksDirectory)
                : ChunkFileSet.scanningAhead(chunksDirectory)) {
            for (var candidate : candidates.descendingMap().entrySet()) {
                String problem = examine(candidate.getValue(), wal, files);
                if (problem == null) {
                    loaded = load(candidate.getValue(), files);
                    break;
                }
                damage.add(problem);
                stats.increment(ShardStats.Counter.CHECKPOINTS_DAMAGED);
                LOG.log(System.Logger.Level.ERROR, "shard " + shard.index() + ": discarding checkpoint: " + problem);
                Files.deleteIfExists(candidate.getValue());
                wal = reopener.reopenScanningAll(); // what comes next (an older checkpoint, the whole WAL) reads earlier segments
            }
        } finally {
            codec.endCheck();
        }
        if (loaded >= 0) {
            if (wal.writtenPosition() < loaded) {
                wal.rollSegment(); // the WAL lost segments after the checkpoint: continue at its position, not before it
            }
            return new RestoreReport(loaded, loaded, List.copyOf(damage), refilling());
        }
        chunkWriter = newChunkWriter(nextChunkFileIndex(), 0);
        if (WalPosition.segment(wal.firstPosition()) == 0) {
            return new RestoreReport(-1, wal.firstPosition(), List.copyOf(damage), refilling());
        }
        return discard(wal, damage);
    }

    /** The WAL no longer starts at its beginning and no checkpoint covers what it lost: start empty, re-consume. */
    private RestoreReport discard(Wal wal, List<String> damage) throws IOException {
        long start = wal.rollSegment();
        wal.deleteSegmentsBefore(start);
        Files.write(refillMarker, new byte[0]);
        PersistFiles.syncDirectory(shardDirectory);
        stats.increment(ShardStats.Counter.DATA_DISCARDED);
        damage.add("shard " + shard.index() + ": no sound checkpoint and the WAL starts at " + WalPosition.toString(wal.firstPosition())
                + ": persisted data discarded, its partitions are consumed again from the earliest offset");
        LOG.log(System.Logger.Level.ERROR, damage.getLast());
        return new RestoreReport(-1, start, List.copyOf(damage), true);
    }

    private int nextChunkFileIndex() throws IOException {
        var indexes = ChunkFileSet.list(chunksDirectory);
        return indexes.isEmpty() ? 0 : indexes.last() + 1;
    }

    /**
     * Why the checkpoint cannot be loaded (file and position), or null if it can. Changes nothing.
     * One pass: each block's CRC is checked, then the chunk refs of its series, before the next block.
     */
    private String examine(Path path, Wal wal, ChunkFileSet files) throws IOException {
        codec.startCheck();
        try (CheckpointReader in = new CheckpointReader(path)) {
            byte last = 0;
            while (in.hasNextBlock()) {
                String problem = in.verifyNextBlock();
                if (problem == null) {
                    problem = examineBlock(in, path, wal, files);
                }
                if (problem != null) {
                    return problem;
                }
                last = in.kind();
            }
            if (last != CheckpointDescriptor.END) {
                return "checkpoint " + path + " position " + in.nextBlockPosition() + ": ends without its END block (truncated)";
            }
            return null;
        }
    }

    /** Checks one block whose CRC passed: the header's WAL position, or every chunk ref of a SERIES block. */
    private String examineBlock(CheckpointReader in, Path path, Wal wal, ChunkFileSet files) throws IOException {
        if (in.kind() == CheckpointDescriptor.HEADER) {
            in.skip(4 + 4 + 4);
            long position = in.getLong();
            if (position < wal.firstPosition()) {
                return "checkpoint " + path + " covers the WAL up to " + WalPosition.toString(position)
                        + " but the WAL starts at " + WalPosition.toString(wal.firstPosition());
            }
            return null;
        }
        while (in.kind() == CheckpointDescriptor.SERIES && in.hasRemaining()) {
            String chunkProblem = codec.check(in, files);
            if (chunkProblem != null) {
                stats.increment(ShardStats.Counter.CHUNKS_DAMAGED);
                LOG.log(System.Logger.Level.ERROR, "shard " + shard.index() + ": " + chunkProblem);
                return "checkpoint " + path + " references a damaged chunk: " + chunkProblem;
            }
        }
        return null;
    }

    /** Loads a checkpoint that {@link #examine} passed; returns its WAL position. */
    private long load(Path path, ChunkFileSet files) throws IOException {
        try (CheckpointReader in = new CheckpointReader(path)) {
            in.nextBlock();
            in.skip(4 + 4 + 4);
            long position = in.getLong();
            long chunkPosition = in.getLong();
            int nextSeriesId = in.getInt();
            shard.expectSeries(nextSeriesId);
            int lowest = Integer.MAX_VALUE;
            while (in.nextBlock()) {
                switch (in.kind()) {
                    case CheckpointDescriptor.STREAMS -> loadStreams(in);
                    case CheckpointDescriptor.SERIES -> {
                        while (in.hasRemaining()) {
                            codec.restore(in, shard);
                        }
                    }
                    case CheckpointDescriptor.END -> {
                        in.getInt();
                        lowest = in.getInt();
                    }
                    default -> throw new IOException("checkpoint " + path + ": unexpected block " + in.kind());
                }
            }
            while (store.count() < nextSeriesId) {
                shard.createEvictedPlaceholder();
            }
            stats.add(ShardStats.Counter.RESTORED_SAMPLES, codec.takeRestoredSamples());
            store.endRestore();
            lastPosition = position;
            lastLowestFile = lowest;
            chunkWriter = continueChunkFile(chunkPosition);
            return position;
        }
    }

    /** A writer at the checkpoint's chunk position, or in a new file if that file cannot be continued (damaged past the position). */
    private ChunkFileWriter continueChunkFile(long chunkPosition) throws IOException {
        try {
            return newChunkWriter(ChunkFileDescriptor.fileIndex(chunkPosition), ChunkFileDescriptor.offset(chunkPosition));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "shard " + shard.index() + ": cannot continue chunk file at "
                    + ChunkFileDescriptor.toString(chunkPosition) + " (" + e.getMessage() + "); starting a new one");
            return newChunkWriter(nextChunkFileIndex(), 0);
        }
    }

    /** A writer whose flushes release the chunks' memory blocks (readers then use the mappings). */
    private ChunkFileWriter newChunkWriter(int fileIndex, long offset) throws IOException {
        return new ChunkFileWriter(chunksDirectory, options.chunkFileBytes(), fileIndex, offset, store.mappings(),
                store::chunksFlushed);
    }

    /** Maps every chunk file a loaded checkpoint may reference, so readers reach its closed chunks. */
    private void mapChunkFiles() throws IOException {
        for (int index : ChunkFileSet.list(chunksDirectory)) {
            try {
                store.mappings().map(index, ChunkFileDescriptor.path(chunksDirectory, index));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "shard " + shard.index() + ": cannot map chunk file "
                        + ChunkFileDescriptor.path(chunksDirectory, index) + ": " + e);
            }
        }
    }

    private void loadStreams(CheckpointReader in) {
        int n = in.getInt();
        byte[] topic = new byte[256];
        for (int i = 0; i < n; i++) {
            int length = in.getShort();
            if (length > topic.length) {
                topic = new byte[length];
            }
            in.getBytes(topic, 0, length);
            int partition = in.getInt();
            long offset = in.getLong();
            shard.restoreWatermark(streams.idOf(new String(topic, 0, length, StandardCharsets.UTF_8), partition), offset);
        }
    }

    long chunkBytesWritten() {
        return chunkWriter == null ? 0 : chunkWriter.bytesWritten();
    }

    @Override
    public void close() {
        if (chunkWriter != null) {
            chunkWriter.close();
        }
    }
}
