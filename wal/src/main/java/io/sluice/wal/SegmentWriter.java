package io.sluice.wal;

import static io.sluice.wal.RecordDescriptor.END_MARKER_LENGTH;
import static io.sluice.wal.RecordDescriptor.END_OF_SEGMENT_TYPE;
import static io.sluice.wal.RecordDescriptor.HEADER_LENGTH;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The append side of the WAL: claim, commit, sync and roll on the current segment.
 *
 * <p>Every method except the two position getters belongs to the single writer thread (the
 * owner); nothing here locks. Invariant: every byte of the current segment after {@link #tailOffset}
 * is zero (fresh segments are zero-filled, open zeroes what it cuts, commit and abort zero what a
 * claim left unused), so a reader that sees a frame length of 0 at the tail sees "nothing yet".
 *
 * <p>Roll order, so that every crash leaves a state open accepts: (1) create the next segment
 * under a temporary name, preallocated — a full disk fails here and changes nothing; (2) append the
 * end-of-segment marker and force the current segment; (3) rename the next segment into place and
 * sync the directory; (4) map it and move on.
 */
final class SegmentWriter {
    private final Path directory;
    private final WalOptions options;
    private final int newSegmentSizeBytes;
    private final int maxPayloadLength;
    private final long syncIntervalNs;
    private final SegmentPreallocator preallocator;
    private final WalMetrics metrics;
    /** Written by the owner (release), read by anyone. */
    private final AtomicLong writtenPosition = new AtomicLong();
    private final AtomicLong durablePosition = new AtomicLong();

    // Owner thread only.
    private MappedSegment segment;
    private int tailOffset;
    private int syncedOffset;
    private boolean sealed;
    /** Record start of the open claim, or -1. */
    private int claimOffset = -1;
    private int claimBytes;
    private int claimMaxPayloadBytes;
    private int claimType;
    private boolean hasGroupSynced;
    private long lastGroupSyncNanos;

    SegmentWriter(WalOptions options, SegmentPreallocator preallocator, WalMetrics metrics,
                  WalRecovery.Recovered start) {
        this.directory = options.directory();
        this.options = options;
        this.newSegmentSizeBytes = options.segmentSizeBytes();
        this.maxPayloadLength = options.maxPayloadLength();
        this.syncIntervalNs = TimeUnit.MILLISECONDS.toNanos(options.syncIntervalMs());
        this.preallocator = preallocator;
        this.metrics = metrics;
        this.segment = start.segment();
        this.tailOffset = start.tailOffset();
        this.syncedOffset = start.tailOffset();
        this.sealed = start.sealed();
        long position = WalPosition.of(segment.index, tailOffset);
        writtenPosition.set(position);
        durablePosition.set(position);
    }

    long claim(int type, int maxPayloadBytes) throws IOException {
        if (claimOffset >= 0) {
            throw new IllegalStateException("a claim is already open at " + WalPosition.toString(claimPosition()));
        }
        if (!RecordDescriptor.isCallerType(type)) {
            throw new IllegalArgumentException("record type must be 1..255: " + type);
        }
        if (maxPayloadBytes < 0 || maxPayloadBytes > maxPayloadLength) {
            throw new IllegalArgumentException("payload of " + maxPayloadBytes + " bytes: a record holds 0.."
                    + maxPayloadLength + " bytes with " + newSegmentSizeBytes + "-byte segments");
        }
        int frameBytes = RecordDescriptor.alignedLength(HEADER_LENGTH + maxPayloadBytes);
        if (sealed || (long) tailOffset + frameBytes + END_MARKER_LENGTH > segment.declaredSize()) {
            roll(frameBytes);
        }
        claimOffset = tailOffset;
        claimBytes = frameBytes;
        claimMaxPayloadBytes = maxPayloadBytes;
        claimType = type;
        return tailOffset + HEADER_LENGTH;
    }

    long commit(int payloadBytes) {
        if (claimOffset < 0) {
            throw new IllegalStateException("commit without a claim");
        }
        if (payloadBytes < 0 || payloadBytes > claimMaxPayloadBytes) {
            throw new IllegalArgumentException("committed " + payloadBytes + " bytes, claimed " + claimMaxPayloadBytes);
        }
        int frameLength = HEADER_LENGTH + payloadBytes;
        int start = claimOffset;
        segment.zero(start + frameLength, start + claimBytes);
        segment.publish(start, claimType, frameLength);
        int alignedBytes = RecordDescriptor.alignedLength(frameLength);
        tailOffset = start + alignedBytes;
        claimOffset = -1;
        long end = WalPosition.of(segment.index, tailOffset);
        writtenPosition.setRelease(end);
        metrics.onRecord(alignedBytes);
        return end;
    }

    void abort() {
        if (claimOffset >= 0) {
            segment.zero(claimOffset, claimOffset + claimBytes);
            claimOffset = -1;
        }
    }

    long append(int type, byte[] src, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, src.length);
        long payloadOffset = claim(type, length);
        MemorySegment.copy(src, offset, segment.mapping, ValueLayout.JAVA_BYTE, payloadOffset, length);
        return commit(length);
    }

    long append(int type, MemorySegment src) throws IOException {
        long size = src.byteSize();
        if (size > maxPayloadLength) {
            throw new IllegalArgumentException("payload of " + size + " bytes: a record holds 0.." + maxPayloadLength);
        }
        long payloadOffset = claim(type, (int) size);
        MemorySegment.copy(src, 0, segment.mapping, payloadOffset, size);
        return commit((int) size);
    }

    MemorySegment mapping() {
        return segment.mapping;
    }

    int segmentIndex() {
        return segment.index;
    }

    long writtenPosition() {
        return writtenPosition.get();
    }

    long durablePosition() {
        return durablePosition.get();
    }

    /** Forces everything committed so far; a claim still open is not included. */
    void sync() throws IOException {
        int target = tailOffset;
        if (target <= syncedOffset) {
            return;
        }
        long startNs = System.nanoTime();
        segment.force(syncedOffset, target);
        syncedOffset = target;
        durablePosition.setRelease(WalPosition.of(segment.index, target));
        metrics.onSync(System.nanoTime() - startNs);
    }

    boolean maybeSync(long nowNanos) throws IOException {
        if (tailOffset <= syncedOffset) {
            return false;
        }
        if (hasGroupSynced && nowNanos - lastGroupSyncNanos < syncIntervalNs) {
            return false;
        }
        sync();
        hasGroupSynced = true;
        lastGroupSyncNanos = nowNanos;
        return true;
    }

    /**
     * Seals the current segment and starts the next, unless the current one holds no record yet;
     * returns the position where the next record will start (a segment's first record).
     */
    long rollToNewSegment() throws IOException {
        if (claimOffset >= 0) {
            throw new IllegalStateException("cannot roll with a claim open at " + WalPosition.toString(claimPosition()));
        }
        if (sealed || tailOffset > SegmentDescriptor.HEADER_LENGTH) {
            roll(0);
        }
        return WalPosition.of(segment.index, tailOffset);
    }

    /** Starts the next segment, sized by {@link WalOptions#nextSegmentSize} to hold a frame of {@code frameBytes}. */
    private void roll(int frameBytes) throws IOException {
        int next = segment.index + 1;
        int sizeBytes = options.nextSegmentSize(segment.declaredSize(), frameBytes);
        SegmentFiles.prepare(directory, next, sizeBytes, preallocator);
        try {
            seal();
            SegmentFiles.install(directory, next);
        } catch (IOException | RuntimeException e) {
            SegmentFiles.discard(directory, next, e);
            throw e;
        }
        metrics.onSegmentCreated();
        MappedSegment fresh = MappedSegment.mapReadWrite(SegmentDescriptor.path(directory, next), next,
                sizeBytes, metrics);
        segment.close();
        segment = fresh;
        tailOffset = SegmentDescriptor.HEADER_LENGTH;
        syncedOffset = tailOffset;
        sealed = false;
        long start = WalPosition.of(next, tailOffset);
        durablePosition.setRelease(start);
        writtenPosition.setRelease(start);
    }

    /** Appends the end-of-segment marker (once) and forces the segment up to and including it. */
    private void seal() throws IOException {
        if (!sealed) {
            segment.publish(tailOffset, END_OF_SEGMENT_TYPE, END_MARKER_LENGTH);
            sealed = true;
            metrics.onMarker(END_MARKER_LENGTH);
        }
        long startNs = System.nanoTime();
        segment.force(syncedOffset, tailOffset + END_MARKER_LENGTH);
        syncedOffset = tailOffset;
        durablePosition.setRelease(WalPosition.of(segment.index, tailOffset));
        metrics.onSync(System.nanoTime() - startNs);
    }

    private long claimPosition() {
        return WalPosition.of(segment.index, claimOffset);
    }

    /** Aborts an open claim, syncs, unmaps. */
    void close() throws IOException {
        abort();
        try {
            sync();
        } finally {
            segment.close();
        }
    }
}
