package io.sluice.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a WAL directory holds, read without changing anything (no repair, no lock): its segments,
 * record counts by type, first and last record, and the first damage. {@code sluice wal inspect}
 * prints {@link #toString()}.
 *
 * <p>Inspecting a directory a writer is appending to is best effort: the tail may move while it is
 * read, and a record being written can show up as damage at the very end.
 *
 * @param directory           the directory inspected
 * @param segments            every segment read, in order (the scan stops at the first damage)
 * @param recordsByType       valid records by type (index 1..255); index 0 counts nothing
 * @param firstRecordPosition position of the first valid record, or {@link WalPosition#NONE}
 * @param lastRecordPosition  position of the last valid record, or {@link WalPosition#NONE}
 * @param endPosition         where the valid log ends (the next record would start there)
 * @param corruption          the first damage, or null if the log is sound
 * @param unfinishedSegment   whether the last segment file is an all-zero leftover of an
 *                            interrupted segment creation (open removes it; not damage)
 */
public record WalInspection(Path directory, List<SegmentSummary> segments, long[] recordsByType,
                            long firstRecordPosition, long lastRecordPosition, long endPosition,
                            WalCorruption corruption, boolean unfinishedSegment) {

    /**
     * One segment file.
     *
     * @param index         segment index (from the file name, checked against the header)
     * @param fileSizeBytes the file's size on disk
     * @param declaredBytes the segment size its header declares (0 if the header is bad)
     * @param usedBytes     end of its valid records: header and records, padding included
     * @param records       valid records in it
     * @param sealed        whether it ends with an end-of-segment marker
     */
    public record SegmentSummary(int index, long fileSizeBytes, int declaredBytes, int usedBytes, long records,
                                 boolean sealed) {
    }

    /** Inspects {@code directory} read-only. Damage is a result, never an exception. */
    public static WalInspection inspect(Path directory) throws IOException {
        DirectoryScan scan = DirectoryScan.scan(directory);
        return new WalInspection(directory, List.copyOf(scan.summaries), scan.recordsByType.clone(),
                scan.firstRecordPosition, scan.lastRecordPosition, scan.endPosition(), scan.corruption,
                scan.unfinishedLast);
    }

    /** Valid records of all types. */
    public long totalRecords() {
        long total = 0;
        for (long count : recordsByType) {
            total += count;
        }
        return total;
    }

    /** Valid records of {@code type}. */
    public long records(int type) {
        return recordsByType[type];
    }

    public boolean isClean() {
        return corruption == null;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        out.append("WAL ").append(directory).append('\n');
        out.append(String.format("%-12s %14s %14s %14s %12s %s%n", "segment", "file bytes", "declared", "used", "records",
                "sealed"));
        for (SegmentSummary s : segments) {
            out.append(String.format("%-12d %14d %14d %14d %12d %s%n", s.index(), s.fileSizeBytes(), s.declaredBytes(),
                    s.usedBytes(), s.records(), s.sealed() ? "yes" : "no"));
        }
        out.append("records by type:");
        for (int type = RecordDescriptor.MIN_TYPE; type <= RecordDescriptor.MAX_TYPE; type++) {
            if (recordsByType[type] > 0) {
                out.append(' ').append(type).append('=').append(recordsByType[type]);
            }
        }
        out.append(" (total ").append(totalRecords()).append(")\n");
        out.append("first record: ").append(WalPosition.toString(firstRecordPosition))
                .append(", last record: ").append(WalPosition.toString(lastRecordPosition))
                .append(", end: ").append(WalPosition.toString(endPosition)).append('\n');
        if (unfinishedSegment) {
            out.append("last segment file is an unfinished (all-zero) creation\n");
        }
        out.append("corruption: ").append(corruption == null ? "none" : corruption.toString()).append('\n');
        return out.toString();
    }
}
