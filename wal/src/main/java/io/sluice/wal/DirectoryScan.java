package io.sluice.wal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads every segment of a WAL directory, without changing anything, and finds where the valid log
 * ends: the first missing segment, bad header or damaged record. Open repairs from its result;
 * inspection prints it.
 *
 * <p>One state is not damage: a last segment that is all zeros, header included, is a segment
 * creation the machine lost power in the middle of (the rename reached the disk, the header did
 * not). It holds nothing, is not counted as corruption, and open removes it.
 */
final class DirectoryScan {
    final Path directory;
    /** Every segment file found, ascending. */
    final int[] indexes;
    /** Segments (from the start of {@link #indexes}) that make up the valid log, the damaged one included. */
    int keepCount;
    /** The last segment is an all-zero leftover of an interrupted creation. */
    boolean unfinishedLast;
    /**
     * Kept segments (from the start of {@link #indexes}) that open was told to leave unread: they lie
     * wholly before the position a caller's checkpoint covers ({@link Wal#open(WalOptions, long)}).
     * Only their presence and order were checked; their records are not counted.
     */
    int unscannedCount;
    /** The scan of the last kept segment, or null if none is kept. */
    SegmentScan lastScan;
    int lastDeclaredSize;
    /** The first damage, or null. */
    WalCorruption corruption;

    final List<WalInspection.SegmentSummary> summaries = new ArrayList<>();
    final long[] recordsByType = new long[RecordDescriptor.MAX_TYPE + 1];
    long firstRecordPosition = WalPosition.NONE;
    long lastRecordPosition = WalPosition.NONE;
    /** Bytes the scans' zero checks read from the files ({@link FileZeroCheck}; tests). */
    long zeroBytesRead;

    /** Segments with a lower index are not read (unless one is the last); 0 reads every segment. */
    private final int scanFromIndex;
    /** Per entry of {@link #indexes}: where its checked frames end (0 if it was not read). */
    private final int[] checkedEnds;

    private DirectoryScan(Path directory, int[] indexes, int scanFromIndex) {
        this.directory = directory;
        this.indexes = indexes;
        this.scanFromIndex = scanFromIndex;
        this.checkedEnds = new int[indexes.length];
    }

    static DirectoryScan scan(Path directory) throws IOException {
        return scan(directory, 0);
    }

    /**
     * Like {@link #scan(Path)}, but segments whose index is below {@code scanFromIndex} are only
     * checked to be present and consecutive, not read; the last segment is always read (the writer
     * continues in it), so its state and the valid log's end are known as with a full scan.
     */
    static DirectoryScan scan(Path directory, int scanFromIndex) throws IOException {
        DirectoryScan scan = new DirectoryScan(directory, SegmentFiles.list(directory), scanFromIndex);
        scan.run();
        if (scan.keepCount > 0 && scan.keepCount == scan.unscannedCount) {
            // The log ends in a skipped segment (a later one is missing or has a bad header): the writer
            // continues in it, so it must be read after all; read everything, exactly as a full open.
            scan = new DirectoryScan(directory, scan.indexes, 0);
            scan.run();
        }
        return scan;
    }

    private void run() throws IOException {
        int count = indexes.length;
        if (count > 0 && isUnfinished(indexes[count - 1])) {
            unfinishedLast = true;
            count--;
        }
        for (int i = 0; i < count; i++) {
            if (i > 0 && indexes[i] != indexes[i - 1] + 1) {
                corruption = new WalCorruption(indexes[i - 1] + 1, 0, CorruptionReason.MISSING_SEGMENT, 0, count - i,
                        "segments " + indexes[i - 1] + " and " + indexes[i] + " exist, those between do not");
                return;
            }
            if (indexes[i] < scanFromIndex && i < count - 1) {
                keepCount = i + 1; // covered by the caller's checkpoint: not read now (Wal#reopenScanningAll reads them)
                unscannedCount = keepCount;
                continue;
            }
            if (!scanSegment(i, i == count - 1, count)) {
                return;
            }
        }
    }

    /** Scans segment {@code indexes[i]}; false if the valid log ends in it. */
    private boolean scanSegment(int i, boolean isLast, int count) throws IOException {
        int index = indexes[i];
        Path file = SegmentDescriptor.path(directory, index);
        try (MappedSegment segment = MappedSegment.mapReadOnly(file, index, WalOptions.MAX_SEGMENT_SIZE_BYTES, null)) {
            String badHeader = SegmentDescriptor.checkHeader(segment.mapping, segment.fileSize, index);
            if (badHeader != null) {
                corruption = new WalCorruption(index, 0, CorruptionReason.BAD_HEADER, segment.endOfData(0),
                        count - 1 - i, badHeader);
                summaries.add(new WalInspection.SegmentSummary(index, segment.fileSize, 0, 0, 0, false));
                return false;
            }
            int declaredSize = SegmentDescriptor.declaredSize(segment.mapping);
            segment.useDeclaredSize(declaredSize);
            SegmentScan result = SegmentScan.scan(segment, file, isLast, recordsByType);
            keepCount = i + 1;
            checkedEnds[i] = result.endOffset;
            zeroBytesRead += result.zeroBytesRead;
            lastScan = result;
            lastDeclaredSize = declaredSize;
            summaries.add(new WalInspection.SegmentSummary(index, segment.fileSize, declaredSize, result.endOffset,
                    result.records, result.sealed));
            noteRecords(index, result);
            if (result.isDamaged()) {
                corruption = new WalCorruption(index, result.endOffset, result.reason, result.bytesCut, count - 1 - i,
                        result.detail);
                return false;
            }
            return true;
        }
    }

    private void noteRecords(int index, SegmentScan result) {
        if (result.firstRecordOffset >= 0 && firstRecordPosition == WalPosition.NONE) {
            firstRecordPosition = WalPosition.of(index, result.firstRecordOffset);
        }
        if (result.lastRecordOffset >= 0) {
            lastRecordPosition = WalPosition.of(index, result.lastRecordOffset);
        }
    }

    private boolean isUnfinished(int index) throws IOException {
        Path file = SegmentDescriptor.path(directory, index);
        if (Files.size(file) == 0) {
            return true;
        }
        try (MappedSegment segment = MappedSegment.mapReadOnly(file, index, WalOptions.MAX_SEGMENT_SIZE_BYTES, null)) {
            return segment.isZero(0, Math.min(segment.fileSize, SegmentDescriptor.HEADER_LENGTH))
                    && segment.endOfData(0) == 0;
        }
    }

    /**
     * The frames this scan checked in the kept segments (every frame below each one's valid end; none
     * in segments it left unread), for the readers of the WAL opened from it ({@link VerifiedFrames}).
     */
    VerifiedFrames verifiedFrames() {
        return keepCount == 0 ? VerifiedFrames.NONE : new VerifiedFrames(indexes[0], Arrays.copyOf(checkedEnds, keepCount));
    }

    /** Where the valid log ends (the next record would go there), or NONE if no segment is kept. */
    long endPosition() {
        return lastScan == null ? WalPosition.NONE : WalPosition.of(indexes[keepCount - 1], lastScan.endOffset);
    }
}
