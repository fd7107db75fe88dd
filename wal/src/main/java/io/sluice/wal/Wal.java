package io.sluice.wal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A segmented, memory-mapped write-ahead log: one directory, one writer, any number of readers.
 *
 * <p><b>Threads.</b> One owner thread writes: {@code claim}, {@code commit}, {@code abort},
 * {@code append}, {@code sync}, {@code maybeSync}, {@code deleteSegmentsBefore} and {@code close}
 * are for it alone and take no locks. {@link #writtenPosition()}, {@link #durablePosition()},
 * {@link #metrics()} and {@link #openReader(long)} may be called from any thread; each
 * {@link WalReader} then belongs to the thread that reads it.
 *
 * <p><b>Writing a record in place.</b> {@code long at = wal.claim(type, max)} reserves room and
 * returns the offset in {@link #mapping()} where the payload goes; write at most {@code max} bytes
 * there, then {@code wal.commit(n)} publishes the record (n &lt;= max) and returns its end position,
 * or {@code wal.abort()} drops it. No reader sees a record, and nothing counts it durable, before
 * its commit. The mapping object stays the same until a claim rolls to the next segment.
 *
 * <p><b>Durability.</b> {@link #sync()} forces what was committed; {@link #maybeSync(long)} does so at
 * most every {@code syncIntervalMs}, for the owner's loop (group commit). {@link #durablePosition()}
 * is the end of what has been forced.
 *
 * <p><b>Open.</b> {@link #open(WalOptions)} validates every segment and cuts the log at the first
 * damage ({@link #openReport()} says where and why); see docs/format/wal.md. Only I/O failures
 * throw. A second writer on the same directory is refused (a lock file).
 */
public final class Wal implements AutoCloseable {
    static final String LOCK_FILE = "wal.lock";

    private final WalOptions options;
    private final WalMetrics metrics;
    private final SegmentPreallocator preallocator;
    /** Set by open (or, merged, by {@link #reopenScanningAll()} before the instance is handed out); owner thread. */
    private WalOpenReport openReport;
    /** Segments open left unread (they lie before the caller's checkpoint); owner thread. */
    private final int unscannedSegments;
    private final SegmentWriter writer;
    /** The frames open checked; readers of this WAL do not checksum them again. Immutable. */
    private final VerifiedFrames verified;
    private final FileChannel lockChannel;
    private final FileLock lock;
    /** Written by the owner (deleteSegmentsBefore), read by any thread opening a reader. */
    private volatile int firstSegmentIndex;
    private boolean closed;

    private Wal(WalOptions options, WalMetrics metrics, WalRecovery.Recovered recovered, SegmentPreallocator preallocator,
                FileChannel lockChannel, FileLock lock) {
        this.options = options;
        this.metrics = metrics;
        this.openReport = recovered.report();
        this.unscannedSegments = recovered.unscannedSegments();
        this.preallocator = preallocator;
        this.firstSegmentIndex = recovered.firstIndex();
        this.writer = new SegmentWriter(options, preallocator, metrics, recovered);
        this.verified = recovered.verified();
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Opens (creating if needed) the WAL in {@code options.directory()}, repairing damage.
     *
     * @throws WalFormatException if a segment was written by a newer, unreadable format version
     * @throws IOException        on I/O failure, or if another writer holds the directory
     */
    public static Wal open(WalOptions options) throws IOException {
        return open(options, SegmentPreallocator.ALLOCATE);
    }

    static Wal open(WalOptions options, SegmentPreallocator preallocator) throws IOException {
        return open(options, preallocator, new WalMetrics(), 0);
    }

    /**
     * Opens like {@link #open(WalOptions)}, but does not read the segments that lie wholly before
     * {@code scanFrom} (a position a caller's checkpoint covers, so replay starts there and never
     * needs them): only their presence and order are checked, not their frames, so damage in them is
     * neither found nor repaired now. The last segment is always read. {@link #openReport()} counts
     * the records of the segments read. If the caller finds it needs the skipped segments after all
     * (its checkpoint is damaged), {@link #reopenScanningAll()} reads them with the full repair.
     * {@link WalPosition#NONE} (or any position in the first segment) reads everything.
     */
    public static Wal open(WalOptions options, long scanFrom) throws IOException {
        int fromIndex = scanFrom == WalPosition.NONE ? 0 : WalPosition.segment(scanFrom);
        return open(options, SegmentPreallocator.ALLOCATE, new WalMetrics(), fromIndex);
    }

    private static Wal open(WalOptions options, SegmentPreallocator preallocator, WalMetrics metrics, int scanFromIndex)
            throws IOException {
        Files.createDirectories(options.directory());
        Path lockPath = options.directory().resolve(LOCK_FILE);
        FileChannel lockChannel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = tryLock(lockChannel, lockPath);
            WalRecovery.Recovered recovered = WalRecovery.recover(options, preallocator, metrics, scanFromIndex);
            return new Wal(options, metrics, recovered, preallocator, lockChannel, lock);
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
    }

    private static FileLock tryLock(FileChannel channel, Path lockPath) throws IOException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            throw new IOException("another writer holds the WAL directory (" + lockPath + " is locked)");
        }
        return lock;
    }

    /** Inspects a WAL directory read-only, without repairing; see {@link WalInspection}. */
    public static WalInspection inspect(Path directory) throws IOException {
        return WalInspection.inspect(directory);
    }

    /** What open found: clean, or where the log was cut and why. */
    public WalOpenReport openReport() {
        return openReport;
    }

    /** Segments {@link #open(WalOptions, long)} left unread (0 after a full open). */
    public int unscannedSegments() {
        return unscannedSegments;
    }

    /**
     * Closes this WAL and opens it again reading every segment, with the full repair of
     * {@link #open(WalOptions)}: for a caller that opened with {@link #open(WalOptions, long)} and then
     * found it needs the segments it skipped. Nothing may have been appended since open (the caller is
     * still deciding where replay starts), so closing loses nothing. The new WAL keeps these metrics,
     * and its report keeps the damage this open found unless the full read found earlier damage.
     * Owner thread; this instance is closed afterwards. Returns this if nothing was skipped.
     */
    public Wal reopenScanningAll() throws IOException {
        if (unscannedSegments == 0) {
            return this;
        }
        if (writer.writtenPosition() != openReport.endPosition()) {
            throw new IllegalStateException("records were appended since open: " + WalPosition.toString(writer.writtenPosition()));
        }
        close();
        Wal full = open(options, preallocator, metrics, 0);
        WalOpenReport found = full.openReport;
        full.openReport = new WalOpenReport(found.segments(), found.records(), found.endPosition(),
                found.corruption() != null ? found.corruption() : openReport.corruption(),
                found.unfinishedRemoved() + openReport.unfinishedRemoved());
        return full;
    }

    public WalOptions options() {
        return options;
    }

    public WalMetrics metrics() {
        return metrics;
    }

    /**
     * Reserves room for a record of up to {@code maxPayloadLength} bytes of {@code type} (1..255),
     * rolling to a new segment if it does not fit in this one, and returns the offset in
     * {@link #mapping()} where its payload starts (8-byte aligned).
     *
     * @throws IllegalArgumentException if the type is out of range or the payload could never fit in
     *                                  a segment ({@link WalOptions#maxPayloadLength()})
     * @throws IllegalStateException    if a claim is already open
     * @throws IOException              if rolling failed (e.g. a full disk); nothing changed, and a
     *                                  later claim retries
     */
    public long claim(int type, int maxPayloadLength) throws IOException {
        return writer.claim(type, maxPayloadLength);
    }

    /** Publishes the claimed record with {@code payloadLength} (&lt;= the claimed maximum) bytes; returns its end position. */
    public long commit(int payloadLength) {
        return writer.commit(payloadLength);
    }

    /** Drops the open claim, if any. */
    public void abort() {
        writer.abort();
    }

    /**
     * Index of the segment the writer is in: after {@link #claim}, the segment holding the claimed
     * record (a caller encoding against per-segment state needs it). Owner thread only.
     */
    public int segmentIndex() {
        return writer.segmentIndex();
    }

    /** The current segment's mapping, where claimed payloads are written. Owner thread only. */
    public MemorySegment mapping() {
        return writer.mapping();
    }

    /** Appends a record holding {@code src[offset, offset + length)}; returns its end position. */
    public long append(int type, byte[] src, int offset, int length) throws IOException {
        return writer.append(type, src, offset, length);
    }

    /** Appends a record holding all of {@code src}; returns its end position. */
    public long append(int type, MemorySegment src) throws IOException {
        return writer.append(type, src);
    }

    /**
     * Forces every committed record to disk, then advances {@link #durablePosition()}.
     *
     * <p>If it throws, the durable position stays where it was and a later sync tries again; but
     * after a failed msync/fsync Linux may already have dropped the dirty pages, so a caller that
     * needs the guarantee should treat the failure as fatal: close, and reopen (open re-validates).
     */
    public void sync() throws IOException {
        writer.sync();
    }

    /**
     * Group commit: syncs if something is unsynced and no sync by this method happened in the last
     * {@code syncIntervalMs} (by the caller's clock, {@code System.nanoTime()} or a test's).
     *
     * @return true if it synced
     */
    public boolean maybeSync(long nowNanos) throws IOException {
        return writer.maybeSync(nowNanos);
    }

    /**
     * Starts a new segment now (sealing and forcing the current one), unless the current segment is
     * still empty. Returns the position of the next record, the first of its segment: a checkpoint
     * taken here lets every earlier segment go, and a reader starting here needs none of them.
     * Owner thread; no claim may be open.
     *
     * @throws IOException if the next segment cannot be created (e.g. a full disk); nothing changed
     */
    public long rollSegment() throws IOException {
        return writer.rollToNewSegment();
    }

    /** End of the last committed record (where the next starts). Any thread. */
    public long writtenPosition() {
        return writer.writtenPosition();
    }

    /** End of what has been forced to disk; never past {@link #writtenPosition()}. Any thread. */
    public long durablePosition() {
        return writer.durablePosition();
    }

    /** Position of the first record the WAL still holds (the start of its first segment). */
    public long firstPosition() {
        return WalPosition.of(firstSegmentIndex, SegmentDescriptor.HEADER_LENGTH);
    }

    /**
     * Deletes the segments that lie wholly before {@code position} (its own segment and the current
     * one are kept), oldest first. Readers still inside a deleted segment keep reading it.
     *
     * @return how many segment files were deleted
     */
    public int deleteSegmentsBefore(long position) throws IOException {
        int end = Math.min(WalPosition.segment(position), writer.segmentIndex());
        if (end <= firstSegmentIndex) {
            return 0;
        }
        int deleted = SegmentFiles.deleteOldestFirst(options.directory(), firstSegmentIndex, end);
        firstSegmentIndex = end;
        metrics.onSegmentsDeleted(deleted);
        return deleted;
    }

    /** A reader from {@code fromPosition} (a record boundary this WAL returned). Any thread. */
    public WalReader openReader(long fromPosition) throws IOException {
        return WalReader.open(options.directory(), fromPosition, metrics, verified);
    }

    /** A reader from the first record the WAL holds. */
    public WalReader openReader() throws IOException {
        return openReader(firstPosition());
    }

    /** Aborts an open claim, syncs, unmaps and releases the directory. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            writer.close();
        } finally {
            try {
                lock.release();
            } finally {
                lockChannel.close();
            }
        }
    }
}
