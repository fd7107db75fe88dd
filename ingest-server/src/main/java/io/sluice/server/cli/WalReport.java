package io.sluice.server.cli;

import io.sluice.core.head.records.HeadRecordType;
import io.sluice.core.head.records.OffsetsRecord;
import io.sluice.wal.Wal;
import io.sluice.wal.WalInspection;
import io.sluice.wal.WalPosition;
import io.sluice.wal.WalReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The inspection of one shard WAL as {@code sluice wal inspect} prints it: segments, records by
 * head record type, positions, the first damage, and the Kafka offset watermarks its OFFSETS records
 * hold (the highest offset per partition, i.e. what a restart resumes after).
 *
 * @param watermarks      highest offset per "topic/partition", in name order
 * @param malformedOffsets OFFSETS records that passed the CRC but did not decode (a bug or format mismatch)
 */
record WalReport(WalInspection inspection, Map<String, Long> watermarks, long malformedOffsets) {

    /** Inspects {@code directory} read-only (no repair, no lock; safe beside a running writer, best effort). */
    static WalReport of(Path directory) throws IOException {
        WalInspection inspection = Wal.inspect(directory);
        Map<String, Long> watermarks = new TreeMap<>();
        long malformed = 0;
        OffsetsRecord.Decoder decoder = new OffsetsRecord.Decoder();
        try (WalReader reader = WalReader.openFirst(directory)) {
            while (reader.next()) {
                if (reader.type() != HeadRecordType.OFFSETS) {
                    continue;
                }
                decoder.wrap(reader.mapping(), reader.payloadOffset(), reader.payloadLength());
                while (decoder.next()) {
                    watermarks.merge(decoder.topic() + "/" + decoder.partition(), decoder.offset(), Math::max);
                }
                if (decoder.isMalformed()) {
                    malformed++;
                }
            }
        }
        return new WalReport(inspection, watermarks, malformed);
    }

    boolean isClean() {
        return inspection.isClean() && malformedOffsets == 0;
    }

    String format() {
        StringBuilder out = new StringBuilder();
        out.append("WAL ").append(inspection.directory()).append('\n');
        out.append(String.format("  %-10s %14s %14s %12s %s%n", "segment", "file bytes", "used bytes", "records", "sealed"));
        for (WalInspection.SegmentSummary s : inspection.segments()) {
            out.append(String.format("  %-10d %14d %14d %12d %s%n", s.index(), s.fileSizeBytes(), s.usedBytes(), s.records(),
                    s.sealed() ? "yes" : "no"));
        }
        out.append("  records:");
        long[] byType = inspection.recordsByType();
        for (int type = 1; type < byType.length; type++) {
            if (byType[type] > 0) {
                out.append(' ').append(HeadRecordType.name(type)).append('=').append(byType[type]);
            }
        }
        out.append(" (total ").append(inspection.totalRecords()).append(")\n");
        out.append("  first record ").append(WalPosition.toString(inspection.firstRecordPosition()))
                .append(", last record ").append(WalPosition.toString(inspection.lastRecordPosition()))
                .append(", end ").append(WalPosition.toString(inspection.endPosition())).append('\n');
        if (inspection.unfinishedSegment()) {
            out.append("  last segment file is an unfinished (all-zero) creation; open removes it\n");
        }
        out.append("  corruption: ").append(inspection.corruption() == null ? "none" : inspection.corruption()).append('\n');
        if (malformedOffsets > 0) {
            out.append("  malformed OFFSETS records: ").append(malformedOffsets).append('\n');
        }
        out.append("  offset watermarks:").append(watermarks.isEmpty() ? " none\n" : "\n");
        watermarks.forEach((partition, offset) -> out.append(String.format("    %-40s %d%n", partition, offset)));
        return out.toString();
    }
}
