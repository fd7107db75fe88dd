package io.sluice.wal;

import static io.sluice.wal.WalTesting.assertSameRecords;
import static io.sluice.wal.WalTesting.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.wal.WalTesting.Rec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Wal#open(WalOptions, long)}: segments before the given position are not read at open (a
 * caller's checkpoint covers them), the rest is opened and repaired as usual, and
 * {@link Wal#reopenScanningAll()} reads the skipped ones with the full repair when the caller needs
 * them after all.
 */
class WalSkippedScanTest {
    private static final long SEED = 0x5EED_0077L;
    private static final int SEGMENT_BYTES = 64 << 10;
    private static final int PAYLOAD_BYTES = 1000;
    private static final int RECORDS = 300; // about 64 a segment: five segments, 0..4

    @TempDir
    Path dir;
    private List<Rec> written;
    private List<WalTesting.Read> layout; // where each written record starts, read before any damage

    @BeforeEach
    void writeWal() throws IOException {
        try (Wal wal = Wal.open(options())) {
            written = new ArrayList<>(WalTesting.appendMany(wal, new SplittableRandom(SEED), RECORDS, PAYLOAD_BYTES));
        }
        assertThat(WalTesting.segmentFile(dir, 4)).exists();
        layout = readAll(dir);
    }

    private WalOptions options() {
        return WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build();
    }

    private static long segmentStart(int segment) {
        return WalPosition.of(segment, SegmentDescriptor.HEADER_LENGTH);
    }

    /** The first record of {@code segment} in {@link #written}. */
    private int firstRecordOf(int segment) {
        for (int i = 0; i < layout.size(); i++) {
            if (WalPosition.segment(layout.get(i).position()) == segment) {
                return i;
            }
        }
        throw new AssertionError("no record in segment " + segment);
    }

    private List<WalTesting.Read> readAllFrom(long position) {
        try (WalReader reader = WalReader.open(dir, position, new WalMetrics(), VerifiedFrames.NONE)) {
            return WalTesting.drain(reader);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void damageInASkippedSegmentIsNotReadAtOpenAndTheTailIsKept() throws IOException {
        int inSegment1 = firstRecordOf(1) + 5;
        long flipAt = WalPosition.offset(layout.get(inSegment1).position()) + RecordDescriptor.HEADER_LENGTH + 10;
        WalTesting.flipBit(WalTesting.segmentFile(dir, 1), flipAt, 2);
        int fromSegment3 = firstRecordOf(3);
        try (Wal wal = Wal.open(options(), segmentStart(3))) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            assertThat(wal.unscannedSegments()).isEqualTo(3);
            assertThat(wal.openReport().segments()).isEqualTo(5);
            assertThat(wal.openReport().records()).as("only segments 3 and 4 were read").isEqualTo(RECORDS - fromSegment3);
            assertThat(wal.firstPosition()).isEqualTo(segmentStart(0));
            assertSameRecords(readAllFrom(segmentStart(3)), written.subList(fromSegment3, RECORDS), SEED);
            written.add(WalTesting.append(wal, 3, WalTesting.nonZeroPayload(new SplittableRandom(SEED + 1), 500)));
        }
        assertSameRecords(readAllFrom(segmentStart(3)), written.subList(fromSegment3, written.size()), SEED);
    }

    @Test
    void reopenScanningAllFindsAndRepairsDamageInASkippedSegment() throws IOException {
        int damaged = firstRecordOf(1) + 5;
        long position = layout.get(damaged).position();
        WalTesting.flipBit(WalTesting.segmentFile(dir, 1), WalPosition.offset(position) + RecordDescriptor.HEADER_LENGTH + 10, 2);
        Wal wal = Wal.open(options(), segmentStart(3));
        try {
            wal = wal.reopenScanningAll();
            WalCorruption found = wal.openReport().corruption();
            assertThat(found).as("%s", wal.openReport()).isNotNull();
            assertThat(found.reason()).isEqualTo(CorruptionReason.BAD_CRC);
            assertThat(found.position()).isEqualTo(position);
            assertThat(found.laterSegments()).isEqualTo(3);
            assertThat(wal.unscannedSegments()).isZero();
            assertThat(wal.metrics().corruptionsFound()).isEqualTo(1);
            assertThat(WalTesting.segmentFile(dir, 2)).doesNotExist();
            assertSameRecords(readAll(dir), written.subList(0, damaged), SEED);
        } finally {
            wal.close();
        }
    }

    @Test
    void reopenScanningAllOfASoundWalReadsTheSameRecordsAndKeepsTheTailRepair() throws IOException {
        long end = written.getLast().endPosition();
        WalTesting.zeroRange(WalTesting.segmentFile(dir, 4), WalPosition.offset(end) - 300, WalPosition.offset(end));
        Wal wal = Wal.open(options(), segmentStart(2));
        try {
            WalCorruption tail = wal.openReport().corruption();
            assertThat(tail).as("the torn last record is found: the last segment is always read").isNotNull();
            assertThat(tail.reason()).isEqualTo(CorruptionReason.TORN_RECORD);
            wal = wal.reopenScanningAll();
            assertThat(wal.openReport().corruption()).as("the first open's repair stays reported").isEqualTo(tail);
            assertThat(wal.openReport().records()).isEqualTo(RECORDS - 1);
            assertThat(wal.reopenScanningAll()).as("nothing left unread").isSameAs(wal);
            assertSameRecords(readAll(dir), written.subList(0, RECORDS - 1), SEED);
        } finally {
            wal.close();
        }
    }

    @Test
    void aPositionPastTheLastSegmentStillReadsTheLastSegment() throws IOException {
        try (Wal wal = Wal.open(options(), segmentStart(9))) {
            assertThat(wal.unscannedSegments()).isEqualTo(4);
            assertThat(wal.openReport().endPosition()).isEqualTo(written.getLast().endPosition());
        }
    }

    @Test
    void aMissingSkippedSegmentStillCutsTheLog() throws IOException {
        Files.delete(WalTesting.segmentFile(dir, 1));
        try (Wal wal = Wal.open(options(), segmentStart(3))) {
            assertThat(wal.openReport().corruption().reason()).isEqualTo(CorruptionReason.MISSING_SEGMENT);
            assertThat(WalTesting.segmentFile(dir, 3)).doesNotExist();
            assertThat(wal.unscannedSegments()).as("the log ends in segment 0: it was read").isZero();
            assertThat(wal.openReport().endPosition()).isEqualTo(layout.get(firstRecordOf(1) - 1).nextPosition());
        }
    }

    @Test
    void reopenAfterAnAppendIsRefused() throws IOException {
        try (Wal wal = Wal.open(options(), segmentStart(3))) {
            WalTesting.append(wal, 1, new byte[] {1, 2, 3});
            assertThatThrownBy(wal::reopenScanningAll).isInstanceOf(IllegalStateException.class);
        }
    }
}
