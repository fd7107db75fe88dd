package io.sluice.core.head.checkpoint;

import io.sluice.core.chunk.XorIterator;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.chunkfiles.ChunkFileSet;
import io.sluice.core.head.chunkfiles.ChunkFiles;
import io.sluice.core.head.chunkfiles.PersistFiles;
import io.sluice.core.head.series.OutOfOrderStore;
import io.sluice.core.head.series.SeriesStore;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.wal.Wal;
import io.sluice.wal.WalPosition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A shard's checkpoints, which let replay start near the WAL's end (docs/format/checkpoint.md),
 * and the shard's refill state after discarded data. The chunk files they reference are
 * {@link ChunkFiles}' (docs/format/chunks.md).
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
 * consumes its partitions from the beginning again ({@code Head.discardedData()}); records other
 * shards hold are skipped by their watermarks.
 *
 * <p>Threads: the shard thread only.
 */
public final class Checkpoints {
    private static final System.Logger LOG = System.getLogger(Checkpoints.class.getName());

    private final CheckpointTarget shard;
    private final SeriesStore store;
    private final ShardStats stats;
    private final StreamRegistry streams;
    private final Path shardDirectory;
    private final ChunkFiles chunkFiles;
    private final CheckpointSeriesCodec codec;
    private final Path refillMarker;
    private volatile boolean refilling;    // the marker exists; written by the shard thread, read by any
    private volatile long[] refillTarget;  // per stream id; null: not known
    private long lastPosition = -1;        // the newest checkpoint and the lowest chunk file it references
    private int lastLowestFile = Integer.MAX_VALUE;
    private long previousPosition = -1;    // the one before it, kept as a fallback
    private int previousLowestFile = Integer.MAX_VALUE;
    private int examinedSeriesIds;         // the examined checkpoint header's next series id

    /** Checkpoints of the shard whose files are in {@code shardDirectory}. */
    public Checkpoints(CheckpointTarget shard, Path shardDirectory, SeriesStore store, ChunkFiles chunkFiles, ShardStats stats,
                       StreamRegistry streams) {
        this.shard = shard;
        this.store = store;
        this.stats = stats;
        this.streams = streams;
        this.shardDirectory = shardDirectory;
        this.chunkFiles = chunkFiles;
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

    /** Whether the shard re-reads from Kafka what it discarded ({@code Shard.isRefilling()}). Any thread. */
    public boolean isRefilling() {
        return refilling;
    }

    /**
     * Sets what a refilling shard must reach before the refill counts as done: per stream id, the
     * highest watermark the other shards held when it started (what had been committed cannot be
     * above it). Any thread; checked at each checkpoint.
     */
    public void refillUntil(long[] targetByStream) {
        refillTarget = targetByStream.clone();
    }

    /** After a checkpoint: if the shard reached its refill target, the marker goes (a failure keeps it for the next try). */
    public void endRefillIfCaughtUp() {
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

    // ---------------------------------------------------------------- checkpoint

    /** Writes a checkpoint; false (counted, logged) if it could not, in which case the WAL stays whole. */
    public boolean write(Wal wal) {
        try {
            persistUnwritten();
            chunkFiles.sync();
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
        if (!chunkFiles.hasUnwritten()) {
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
                    throw new IOException("the chunk files of " + chunkFiles.directory() + " take no more chunks");
                }
            }
        }
        chunkFiles.allWritten(); // only the first checkpoint after a failed write pays for the pass
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
            out.putLong(chunkFiles.position());
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
            writeOutOfOrder(out);
            out.beginBlock(CheckpointDescriptor.END);
            out.putInt(live);
            out.putInt(lowest == Integer.MAX_VALUE ? chunkFiles.fileIndex() : lowest);
            out.endBlock();
            out.commit();
        }
        return lowest == Integer.MAX_VALUE ? chunkFiles.fileIndex() : lowest;
    }

    /** The series' out-of-order samples, time-ordered, in OUT_OF_ORDER blocks (none if there are none). */
    private void writeOutOfOrder(CheckpointWriter out) throws IOException {
        OutOfOrderStore late = store.outOfOrder();
        if (late.isEmpty()) {
            return;
        }
        XorIterator it = new XorIterator();
        long[] ts = new long[0];
        long[] vs = new long[0];
        out.beginBlock(CheckpointDescriptor.OUT_OF_ORDER);
        for (int id : late.seriesIds()) {
            OutOfOrderStore.Late samples = late.get(id);
            if (samples == null || store.isEvicted(id)) {
                continue;
            }
            int count = samples.sampleCount();
            if (ts.length < count) {
                ts = new long[count];
                vs = new long[count];
            }
            int n = samples.sortedInto(ts, vs, it);
            out.putInt(id);
            out.putInt(n);
            for (int i = 0; i < n; i++) {
                out.putLong(ts[i]);
                out.putLong(vs[i]);
            }
            if (out.blockPayloadBytes() >= CheckpointDescriptor.SERIES_BLOCK_BYTES) {
                out.endBlock();
                out.beginBlock(CheckpointDescriptor.OUT_OF_ORDER);
            }
        }
        out.endBlock();
    }

    /** Restores one OUT_OF_ORDER block (examined: its records fit and name restored series). */
    private void loadOutOfOrder(CheckpointReader in) {
        long[] ts = new long[0];
        long[] vs = new long[0];
        long restored = 0;
        while (in.hasRemaining()) {
            int id = in.getInt();
            int n = in.getInt();
            if (ts.length < n) {
                ts = new long[n];
                vs = new long[n];
            }
            for (int i = 0; i < n; i++) {
                ts[i] = in.getLong();
                vs[i] = in.getLong();
            }
            store.outOfOrder().restore(id, ts, vs, n);
            restored += n;
        }
        stats.add(ShardStats.Counter.RESTORED_SAMPLES, restored);
    }

    /** Why an OUT_OF_ORDER block cannot be loaded, or null: each record must fit, name a series id below the header's, and be time-ordered. */
    private static String examineOutOfOrder(CheckpointReader in, Path path, int nextSeriesId) {
        while (in.hasRemaining()) {
            long at = in.position();
            if (in.remaining() < 8) {
                return "checkpoint " + path + " position " + at + ": a truncated out-of-order record";
            }
            int id = in.getInt();
            int n = in.getInt();
            if (id < 0 || id >= nextSeriesId || n < 1 || (long) n * 16 > in.remaining()) {
                return "checkpoint " + path + " position " + at + ": out-of-order record of series " + id + " with " + n
                        + " samples does not fit its block or names no series";
            }
            long previous = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                long t = in.getLong();
                in.getLong();
                if (i > 0 && t <= previous) {
                    return "checkpoint " + path + " position " + at + ": out-of-order samples of series " + id + " not time-ordered";
                }
                previous = t;
            }
        }
        return null;
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
        chunkFiles.deleteBefore(Math.min(lastLowestFile, previousLowestFile));
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
    public interface WalReopener {
        Wal reopenScanningAll() throws IOException;
    }

    /**
     * The WAL position of the newest complete checkpoint file, or {@link WalPosition#NONE}: the shard
     * opens its WAL without reading the segments before it ({@link Wal#open(io.sluice.wal.WalOptions, long)}).
     * Whether the file is sound is decided later, by {@link #restore}. Before restore.
     */
    public long newestPosition() throws IOException {
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
    public RestoreReport restore(Wal wal, WalReopener reopener) throws IOException {
        Files.createDirectories(shardDirectory);
        RestoreReport report = choose(wal, reopener);
        refilling = report.discardedData();
        return report;
    }

    private RestoreReport choose(Wal opened, WalReopener reopener) throws IOException {
        Wal wal = opened;
        List<String> damage = new ArrayList<>();
        long loaded = -1;
        chunkFiles.mapAll();
        TreeMap<Long, Path> candidates = list();
        // With a checkpoint to check, its chunk files' CRC pass (disk-bound) starts now, beside the checkpoint's own (CPU)
        try (ChunkFileSet files = candidates.isEmpty() ? new ChunkFileSet(chunkFiles.directory())
                : ChunkFileSet.scanningAhead(chunkFiles.directory())) {
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
        chunkFiles.startNewFile();
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
        if (in.kind() == CheckpointDescriptor.OUT_OF_ORDER) {
            return examineOutOfOrder(in, path, examinedSeriesIds);
        }
        if (in.kind() == CheckpointDescriptor.HEADER) {
            in.skip(4 + 4 + 4);
            long position = in.getLong();
            in.getLong();
            examinedSeriesIds = in.getInt();
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
                    case CheckpointDescriptor.OUT_OF_ORDER -> loadOutOfOrder(in);
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
            chunkFiles.continueAt(chunkPosition);
            return position;
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
}
