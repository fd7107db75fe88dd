package io.sluice.wal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Open: find where the valid log ends and cut everything after it, so the writer can append there.
 *
 * <p>Policy (docs/format/wal.md, "Damage and repair"): the first damage ends the log. In the
 * damaged segment everything from the damage on is zeroed (a truncated file is first zero-filled
 * back to its size); every later segment is deleted, newest first, even if it is intact, because
 * records after a hole cannot be replayed in order. A missing segment or a bad header cuts the log
 * at the end of the segment before it. Nothing here throws for damaged data; only I/O failures
 * and a newer format version ({@link WalFormatException}) do.
 */
final class WalRecovery {
    /** The writer's starting state and the report. */
    record Recovered(MappedSegment segment, int tailOffset, boolean sealed, int firstIndex, int unscannedSegments,
                     WalOpenReport report, VerifiedFrames verified) {
    }

    private WalRecovery() {
    }

    /**
     * @param scanFromIndex segments below this index (but never the last) are not read; see
     *                      {@link DirectoryScan#scan(Path, int)}. 0 reads every segment.
     */
    static Recovered recover(WalOptions options, SegmentPreallocator preallocator, WalMetrics metrics, int scanFromIndex)
            throws IOException {
        Path directory = options.directory();
        int unfinished = SegmentFiles.deleteTemporaries(directory);
        DirectoryScan scan = DirectoryScan.scan(directory, scanFromIndex);
        int[] indexes = scan.indexes;
        int present = indexes.length;
        if (scan.unfinishedLast) {
            present--;
            Files.delete(SegmentDescriptor.path(directory, indexes[present]));
            SegmentFiles.syncDirectory(directory);
            unfinished++;
        }
        if (scan.corruption != null) {
            metrics.onCorruption();
            SegmentFiles.deleteNewestFirst(directory, indexes, scan.keepCount, present);
            metrics.onSegmentsDeleted(present - scan.keepCount);
        }
        long records = 0;
        for (WalInspection.SegmentSummary summary : scan.summaries) {
            records += summary.records();
        }
        if (scan.keepCount == 0) {
            int index = indexes.length == 0 ? 0 : indexes[0];
            MappedSegment segment = createFirst(options, index, preallocator, metrics);
            WalOpenReport report = new WalOpenReport(1, 0, WalPosition.of(index, SegmentDescriptor.HEADER_LENGTH),
                    scan.corruption, unfinished);
            return new Recovered(segment, SegmentDescriptor.HEADER_LENGTH, false, index, 0, report, VerifiedFrames.NONE);
        }
        int lastIndex = indexes[scan.keepCount - 1];
        SegmentScan last = scan.lastScan;
        MappedSegment segment = last.isDamaged()
                ? repairTail(directory, lastIndex, scan.lastDeclaredSize, last, preallocator, metrics)
                : MappedSegment.mapReadWrite(SegmentDescriptor.path(directory, lastIndex), lastIndex,
                        scan.lastDeclaredSize, metrics);
        forceFound(segment, last);
        WalOpenReport report = new WalOpenReport(scan.keepCount, records, scan.endPosition(), scan.corruption,
                unfinished);
        return new Recovered(segment, last.endOffset, last.sealed, indexes[0], scan.unscannedCount, report,
                scan.verifiedFrames());
    }

    /**
     * The writer starts with its durable position at the end of what open found, so make that true:
     * after a kill -9 the page cache can hold records the disk does not have yet (earlier segments
     * were forced when the writer left them; only the last can be behind).
     */
    private static void forceFound(MappedSegment segment, SegmentScan last) throws IOException {
        int end = last.endOffset + (last.sealed ? RecordDescriptor.END_MARKER_LENGTH : 0);
        try {
            segment.force(SegmentDescriptor.HEADER_LENGTH, end);
        } catch (IOException | RuntimeException e) {
            segment.close();
            throw e;
        }
    }

    private static MappedSegment createFirst(WalOptions options, int index, SegmentPreallocator preallocator,
                                             WalMetrics metrics) throws IOException {
        SegmentFiles.prepare(options.directory(), index, options.firstSegmentSizeBytes(), preallocator);
        SegmentFiles.install(options.directory(), index);
        metrics.onSegmentCreated();
        return MappedSegment.mapReadWrite(SegmentDescriptor.path(options.directory(), index), index,
                options.firstSegmentSizeBytes(), metrics);
    }

    /** Zero-fills a truncated file back to size, zeroes the cut bytes and forces them. */
    private static MappedSegment repairTail(Path directory, int index, int declaredSize, SegmentScan damaged,
                                            SegmentPreallocator preallocator, WalMetrics metrics) throws IOException {
        Path file = SegmentDescriptor.path(directory, index);
        SegmentFiles.extend(file, declaredSize, preallocator);
        MappedSegment segment = MappedSegment.mapReadWrite(file, index, declaredSize, metrics);
        try {
            long from = damaged.endOffset;
            long to = Math.min(declaredSize, from + damaged.bytesCut);
            segment.zero(from, to);
            segment.force(from, to);
            return segment;
        } catch (IOException | RuntimeException e) {
            segment.close();
            throw e;
        }
    }
}
