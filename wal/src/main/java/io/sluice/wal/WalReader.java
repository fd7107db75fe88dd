package io.sluice.wal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Iterates the records of a WAL directory from a position, in order, without allocating per
 * record; it can tail a log a writer is still appending to.
 *
 * <pre>{@code
 * try (WalReader reader = wal.openReader(from)) {
 *     while (reader.next()) {
 *         handle(reader.type(), reader.mapping(), reader.payloadOffset(), reader.payloadLength());
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #next()} returns false when no complete record is there yet; call it again later and
 * it continues where it stopped, so a tailing reader sees every committed record exactly once, in
 * order, across segment rolls. It reads the frame length with acquire order (the writer publishes
 * it last with release order) and checks every record's CRC, so it never returns a record the
 * writer has not committed, nor a damaged one: damage stops it for good and {@link #corruption()}
 * says where. (A reader from {@link Wal#openReader} does not check again the frames that WAL's open
 * verified in this process, once it has checked one frame of their segment: {@link VerifiedFrames}.) A reader needs no writer: it works on a directory opened only for inspection.
 *
 * <p>A reader belongs to one thread at a time. It maps one segment at a time, read-only, in its
 * own arena; {@link #close()} unmaps, and so does moving to the next segment. While it reads a
 * segment it drops the pages it has gone past from the process' resident set every
 * 4 MiB ({@code madvise(MADV_DONTNEED)}, {@link MappedSegment#releaseBehind}): a replay then
 * holds at most a few MiB of WAL pages resident, not a whole segment (the data stays in the page
 * cache). {@link #releasedBytes()} counts what was dropped. Ahead of it, the reader keeps
 * {@code madvise(MADV_WILLNEED)} requests 32 MiB in front ({@link MappedSegment#readAhead}), so
 * on a cold cache the disk reads before the reader faults. The accessors describe the current record and are valid until
 * the next call to {@code next()}; {@link #mapping()} may change on each call.
 */
public final class WalReader implements AutoCloseable {
    private final Path directory;
    private final WalMetrics metrics;
    /** Frames open checked: their CRC is not computed again (immutable, shared with the Wal). */
    private final VerifiedFrames verified;
    // Reader thread only.
    private int segmentIndex;
    private MappedSegment segment;
    /** Where the next frame is expected in the current segment. */
    private int offset;
    /** Where the frames open verified end in the current segment ({@link VerifiedFrames}; 0: none). */
    private int segmentVerifiedEnd;
    /**
     * A frame starting below this is a record open verified, taken without checks ({@link #next()}):
     * {@link #segmentVerifiedEnd} once a frame of this segment passed every check here (so the
     * reader is on the frame chain open walked, whatever position it was opened at), else 0.
     */
    private int trustedEnd;
    private long recordPosition = WalPosition.NONE;
    private int recordOffset;
    private int type;
    private int payloadLength;
    private WalCorruption corruption;
    private boolean closed;
    /** Bytes released by the segments this reader has left behind (the current one counts its own). */
    private long releasedBytesBefore;

    private WalReader(Path directory, int segmentIndex, int offset, WalMetrics metrics, VerifiedFrames verified) {
        this.directory = directory;
        this.verified = verified;
        this.segmentIndex = segmentIndex;
        this.offset = offset;
        this.metrics = metrics;
    }

    /**
     * Opens a reader on {@code directory} at {@code fromPosition}, a record boundary (a position or
     * end position this WAL returned; an offset below the segment header means the segment's start).
     *
     * @throws IllegalArgumentException if the position is misaligned or lies in a deleted segment
     */
    public static WalReader open(Path directory, long fromPosition) throws IOException {
        return open(directory, fromPosition, null, VerifiedFrames.UNKNOWN);
    }

    static WalReader open(Path directory, long fromPosition, WalMetrics metrics, VerifiedFrames verified) throws IOException {
        int index = WalPosition.segment(fromPosition);
        int offset = Math.max(WalPosition.offset(fromPosition), SegmentDescriptor.HEADER_LENGTH);
        if (fromPosition < 0 || offset % RecordDescriptor.ALIGNMENT != 0) {
            throw new IllegalArgumentException("not a record boundary: " + WalPosition.toString(fromPosition));
        }
        int[] existing = SegmentFiles.list(directory);
        if (existing.length > 0 && index < existing[0]) {
            throw new IllegalArgumentException("position " + WalPosition.toString(fromPosition)
                    + " lies before the first segment, " + existing[0] + " (deleted)");
        }
        return new WalReader(directory, index, offset, metrics, verified);
    }

    /** Opens a reader at the first record of the first segment in {@code directory}. */
    public static WalReader openFirst(Path directory) throws IOException {
        int[] existing = SegmentFiles.list(directory);
        int first = existing.length == 0 ? 0 : existing[0];
        return open(directory, WalPosition.of(first, SegmentDescriptor.HEADER_LENGTH));
    }

    /**
     * Moves to the next complete record.
     *
     * @return true if there is one; false if none is there yet (call again later), after damage
     *         ({@link #corruption()}) or after close
     * @throws UncheckedIOException if a segment file cannot be read
     */
    public boolean next() {
        if (offset < trustedEnd) {
            capture();
            return true;
        }
        return nextChecked();
    }

    /**
     * {@link #next()} with every check. Also where a segment's first record, the end marker and
     * the tail come: taken at the first call, so a compiled {@code next()} has this branch and does
     * not trap at the first segment change long after (it used to).
     */
    private boolean nextChecked() {
        if (corruption != null || closed) {
            return false;
        }
        if (segment == null && !mapCurrent()) {
            return false;
        }
        while (true) {
            FrameStatus status = segment.check(offset);
            switch (status) {
                case RECORD -> {
                    capture();
                    trustedEnd = segmentVerifiedEnd;
                    return true;
                }
                case EMPTY -> {
                    return false;
                }
                case END_OF_SEGMENT -> {
                    if (!advance()) {
                        return false;
                    }
                }
                default -> {
                    fail(status);
                    return false;
                }
            }
        }
    }

    private void capture() {
        int frameLength = segment.frameLength(offset);
        recordOffset = offset;
        segment.releaseBehind(offset); // only whole pages below this record
        // Only as far as open found frames (a reader of a bare directory: the whole segment): beyond them
        // lie the zeros of a preallocated segment, or frames this process just wrote, cached anyway.
        segment.readAhead(offset, verified == VerifiedFrames.UNKNOWN ? Long.MAX_VALUE : segmentVerifiedEnd);
        recordPosition = WalPosition.of(segmentIndex, offset);
        type = segment.type(offset);
        payloadLength = frameLength - RecordDescriptor.HEADER_LENGTH;
        offset += RecordDescriptor.alignedLength(frameLength);
    }

    /** Bytes of WAL pages this reader has dropped from the resident set behind it (see the class comment). */
    public long releasedBytes() {
        return releasedBytesBefore + (segment != null ? segment.releasedBytes() : 0);
    }

    /** Maps {@link #segmentIndex}; false if it does not exist (yet) or is damaged. */
    private boolean mapCurrent() {
        Path file = SegmentDescriptor.path(directory, segmentIndex);
        try {
            MappedSegment mapped = MappedSegment.mapReadOnly(file, segmentIndex, WalOptions.MAX_SEGMENT_SIZE_BYTES,
                    metrics);
            String badHeader = SegmentDescriptor.checkHeader(mapped.mapping, mapped.fileSize, segmentIndex);
            if (badHeader != null) {
                mapped.close();
                corruption = new WalCorruption(segmentIndex, 0, CorruptionReason.BAD_HEADER, 0, 0, badHeader);
                countCorruption();
                return false;
            }
            mapped.useDeclaredSize(SegmentDescriptor.declaredSize(mapped.mapping));
            segmentVerifiedEnd = verified.endOffset(segmentIndex);
            trustedEnd = 0;
            segment = mapped;
            return true;
        } catch (NoSuchFileException e) {
            noteIfMissing();
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read WAL segment " + file, e);
        }
    }

    /** Past an end marker: the next segment, once the writer has created it. */
    private boolean advance() {
        int next = segmentIndex + 1;
        if (!Files.exists(SegmentDescriptor.path(directory, next))) {
            noteIfMissing(next);
            return false;
        }
        MappedSegment previous = segment;
        int previousOffset = offset;
        segmentIndex = next;
        offset = SegmentDescriptor.HEADER_LENGTH;
        segment = null;
        if (mapCurrent()) {
            releasedBytesBefore += previous.releasedBytes();
            previous.close();
            return true;
        }
        segmentIndex = next - 1;
        offset = previousOffset;
        segment = previous;
        return false;
    }

    private void noteIfMissing() {
        noteIfMissing(segmentIndex);
    }

    /** A segment that is absent while a later one exists is a hole, not "not written yet". */
    private void noteIfMissing(int index) {
        try {
            int[] existing = SegmentFiles.list(directory);
            if (existing.length > 0 && existing[existing.length - 1] > index) {
                corruption = new WalCorruption(index, 0, CorruptionReason.MISSING_SEGMENT, 0, 0,
                        "segment " + index + " is absent, segment " + existing[existing.length - 1] + " exists");
                countCorruption();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list WAL directory " + directory, e);
        }
    }

    private void fail(FrameStatus status) {
        CorruptionReason reason = switch (status) {
            case BAD_LENGTH -> CorruptionReason.BAD_LENGTH;
            case PAST_END -> CorruptionReason.TORN_RECORD;
            case BAD_CRC -> CorruptionReason.BAD_CRC;
            default -> throw new IllegalStateException("not damage: " + status);
        };
        corruption = new WalCorruption(segmentIndex, offset, reason, segment.endOfData(offset) - offset, 0,
                "frame length " + segment.frameLength(offset) + " (" + status + ")");
        countCorruption();
    }

    private void countCorruption() {
        if (metrics != null) {
            metrics.onCorruption();
        }
    }

    /** The current record's type, 1..255. */
    public int type() {
        return type;
    }

    /** The mapping holding the current record (read-only). */
    public MemorySegment mapping() {
        return segment.mapping;
    }

    /** Offset of the current record's payload in {@link #mapping()} (8-byte aligned). */
    public long payloadOffset() {
        return recordOffset + RecordDescriptor.HEADER_LENGTH;
    }

    public int payloadLength() {
        return payloadLength;
    }

    /** Position of the current record's start, or {@link WalPosition#NONE} before the first. */
    public long position() {
        return recordPosition;
    }

    /** Position right after the current record: where a reader resumes to read what follows it. */
    public long nextPosition() {
        return WalPosition.of(segmentIndex, offset);
    }

    /** The damage that stopped this reader, or null. */
    public WalCorruption corruption() {
        return corruption;
    }

    @Override
    public void close() {
        closed = true;
        trustedEnd = 0;
        if (segment != null) {
            segment.close();
            segment = null;
        }
    }

    /** {@code madvise(WILLNEED)} calls of the read-ahead in the current segment (tests). */
    long readAheadCalls() {
        return segment == null ? 0 : segment.willNeedCalls();
    }
}
