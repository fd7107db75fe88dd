package io.sluice.wal;

import static io.sluice.wal.WalTesting.assertSameRecords;
import static io.sluice.wal.WalTesting.readAll;
import static io.sluice.wal.WalTesting.segmentFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.wal.WalTesting.Read;
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
 * One test per kind of damage, in the manner of Prometheus' TestWALRepair_ReadingError: damage a
 * known WAL at a known byte, then check that inspection and open find it at the right position, that
 * every record before it is intact, and that the WAL takes appends afterwards and reopens clean.
 */
class WalRepairTest {
    private static final long SEED = 0x5EED_0002L;
    private static final int SEGMENT_BYTES = 64 << 10;
    private static final int PAYLOAD_BYTES = 1000;
    /** About 64 records fill a segment; this spreads over five segments. */
    private static final int RECORDS = 300;
    /** The very last record is small, so cutting it at every byte stays quick. */
    private static final int LAST_PAYLOAD_BYTES = 100;

    @TempDir
    Path root;
    private Path pristine;
    private List<Rec> written;
    /** Where each written record starts and ends, as a reader reports it. */
    private List<Read> layout;
    private int damageCount;

    @BeforeEach
    void writePristineWal() throws IOException {
        pristine = root.resolve("pristine");
        try (Wal wal = Wal.open(options(pristine))) {
            SplittableRandom random = new SplittableRandom(SEED);
            written = new ArrayList<>(WalTesting.appendMany(wal, random, RECORDS, PAYLOAD_BYTES));
            written.add(WalTesting.append(wal, 8, WalTesting.nonZeroPayload(random, LAST_PAYLOAD_BYTES)));
        }
        layout = readAll(pristine);
        assertSameRecords(layout, written, SEED);
        assertThat(WalTesting.segmentFile(pristine, 4)).exists();
    }

    private static WalOptions options(Path dir) {
        return WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build();
    }

    /** A fresh copy of the pristine WAL to damage. */
    private Path copy() throws IOException {
        return WalTesting.copyDirectory(pristine, root.resolve("damaged-" + damageCount++));
    }

    /** Index in {@link #layout} of the {@code n}-th record of segment {@code segment}. */
    private int recordIn(int segment, int n) {
        int seen = 0;
        for (int i = 0; i < layout.size(); i++) {
            if (WalPosition.segment(layout.get(i).position()) == segment && seen++ == n) {
                return i;
            }
        }
        throw new AssertionError("segment " + segment + " has no record " + n);
    }

    private int lastRecordOf(int segment) {
        int last = -1;
        for (int i = 0; i < layout.size(); i++) {
            if (WalPosition.segment(layout.get(i).position()) == segment) {
                last = i;
            }
        }
        return last;
    }

    private long start(int record) {
        return layout.get(record).position();
    }

    private long fileOffset(int record) {
        return WalPosition.offset(start(record));
    }

    private Path fileOf(Path dir, int record) {
        return segmentFile(dir, WalPosition.segment(start(record)));
    }

    /**
     * The heart of every case: inspection (read-only) and open find the damage at {@code position} for
     * {@code reason}; the records before it are intact; the WAL appends and reopens clean.
     *
     * @return the corruption open reported
     */
    private WalCorruption assertRepaired(Path dir, long position, CorruptionReason reason) throws IOException {
        String what = reason + " at " + WalPosition.toString(position) + " (seed " + SEED + ")";
        int kept = 0;
        while (kept < written.size() && written.get(kept).endPosition() <= position) {
            kept++;
        }
        WalInspection inspection = Wal.inspect(dir);
        assertThat(inspection.corruption()).as("inspection of %s", what).isNotNull();
        assertThat(inspection.corruption().position()).as("inspected position of %s", what).isEqualTo(position);
        assertThat(inspection.corruption().reason()).as("inspected reason, %s", what).isEqualTo(reason);
        assertThat(inspection.totalRecords()).as("records before the damage, %s", what).isEqualTo(kept);

        WalCorruption found;
        List<Rec> expected = new ArrayList<>(written.subList(0, kept));
        try (Wal wal = Wal.open(options(dir))) {
            found = wal.openReport().corruption();
            assertThat(found).as("open report of %s", what).isEqualTo(inspection.corruption());
            assertThat(wal.metrics().corruptionsFound()).isEqualTo(1);
            assertSameRecords(readAll(dir), expected, what);
            expected.add(WalTesting.append(wal, 9, WalTesting.nonZeroPayload(new SplittableRandom(SEED), 77)));
            expected.addAll(WalTesting.appendMany(wal, new SplittableRandom(SEED + 1), 70, PAYLOAD_BYTES));
        }
        try (Wal wal = Wal.open(options(dir))) {
            assertThat(wal.openReport().isClean()).as("reopen after repairing %s: %s", what, wal.openReport()).isTrue();
            assertSameRecords(readAll(dir), expected, what);
        }
        return found;
    }

    @Test
    void tornLastRecordCutAtEveryByteInsideIt() throws IOException {
        int last = written.size() - 1;
        byte[] original = WalTesting.bytes(fileOf(pristine, last));
        long from = fileOffset(last);
        int frameLength = RecordDescriptor.HEADER_LENGTH + LAST_PAYLOAD_BYTES;
        for (int cut = 1; cut < frameLength; cut++) {
            Path dir = copy();
            WalTesting.truncate(fileOf(dir, last), from + cut);
            WalCorruption found = assertRepaired(dir, start(last), CorruptionReason.TORN_RECORD);
            assertThat(found.bytesCut()).as("bytes cut when cutting at +%d", cut)
                    .isEqualTo(WalTesting.endOfData(original, from, from + cut) - from);
            assertThat(Files.size(fileOf(dir, last))).as("segment zero-filled back to its size").isEqualTo(SEGMENT_BYTES);
        }
    }

    @Test
    void zeroedTailFromEveryByteOfTheLastRecord() throws IOException {
        int last = written.size() - 1;
        long from = fileOffset(last);
        for (int zeroFrom = 0; zeroFrom < RecordDescriptor.HEADER_LENGTH + LAST_PAYLOAD_BYTES; zeroFrom += 3) {
            Path dir = copy();
            WalTesting.zeroRange(fileOf(dir, last), from + zeroFrom, SEGMENT_BYTES);
            if (zeroFrom == 0) {
                // The whole record is gone: indistinguishable from never written, so the log simply ends.
                try (Wal wal = Wal.open(options(dir))) {
                    assertThat(wal.openReport().isClean()).isTrue();
                    assertSameRecords(readAll(dir), written.subList(0, last), SEED);
                }
            } else {
                assertRepaired(dir, start(last), CorruptionReason.TORN_RECORD);
            }
        }
    }

    @Test
    void badCrcFromFlippedBitsInAMiddleRecord() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED + 2);
        for (int segment : new int[] {1, 4}) {
            for (int trial = 0; trial < 8; trial++) {
                int record = recordIn(segment, 10 + trial);
                int[] bytesToFlip = {RecordDescriptor.CRC_OFFSET + random.nextInt(4), 9 + random.nextInt(7),
                        RecordDescriptor.HEADER_LENGTH + random.nextInt(PAYLOAD_BYTES)};
                Path dir = copy();
                WalTesting.flipBit(fileOf(dir, record), fileOffset(record) + bytesToFlip[trial % 3], random.nextInt(8));
                WalCorruption found = assertRepaired(dir, start(record), CorruptionReason.BAD_CRC);
                assertThat(found.laterSegments()).isEqualTo(4 - segment);
            }
        }
    }

    @Test
    void flippedBitInTheLastRecordIsATornWrite() throws IOException {
        int last = written.size() - 1;
        Path dir = copy();
        WalTesting.flipBit(fileOf(dir, last), fileOffset(last) + RecordDescriptor.HEADER_LENGTH + 50, 3);
        assertRepaired(dir, start(last), CorruptionReason.TORN_RECORD);
    }

    @Test
    void badLengthZeroNegativeTooSmallAndLargerThanTheSegment() throws IOException {
        int[] badLengths = {0, -1, Integer.MIN_VALUE, 7, RecordDescriptor.HEADER_LENGTH - 1, SEGMENT_BYTES + 1,
                Integer.MAX_VALUE};
        for (int segment : new int[] {2, 4}) {
            for (int badLength : badLengths) {
                int record = recordIn(segment, 20);
                Path dir = copy();
                WalTesting.writeIntLe(fileOf(dir, record), fileOffset(record), badLength);
                assertRepaired(dir, start(record), CorruptionReason.BAD_LENGTH);
            }
        }
    }

    @Test
    void plausibleButWrongLengthFailsTheChecksum() throws IOException {
        int record = recordIn(3, 5);
        Path dir = copy();
        WalTesting.writeIntLe(fileOf(dir, record), fileOffset(record), RecordDescriptor.HEADER_LENGTH + PAYLOAD_BYTES - 8);
        assertRepaired(dir, start(record), CorruptionReason.BAD_CRC);
    }

    @Test
    void zeroedPageFollowedByRecordsIsDamageNotTheEnd() throws IOException {
        int record = recordIn(4, 3);
        Path dir = copy();
        WalTesting.zeroRange(fileOf(dir, record), fileOffset(record), fileOffset(record) + 4096);
        WalCorruption found = assertRepaired(dir, start(record), CorruptionReason.ZEROED_REGION);
        assertThat(found.bytesCut()).isGreaterThan(4096);
    }

    @Test
    void zeroedTailOfAMiddleSegmentLosesItsEndMarker() throws IOException {
        int record = recordIn(1, 30);
        Path dir = copy();
        WalTesting.zeroRange(fileOf(dir, record), fileOffset(record), SEGMENT_BYTES);
        WalCorruption found = assertRepaired(dir, start(record), CorruptionReason.ZEROED_REGION);
        assertThat(found.laterSegments()).isEqualTo(3);
        assertThat(found.bytesCut()).isZero();
    }

    @Test
    void missingMiddleSegment() throws IOException {
        Path dir = copy();
        Files.delete(segmentFile(dir, 2));
        WalCorruption found = assertRepaired(dir, WalPosition.of(2, 0), CorruptionReason.MISSING_SEGMENT);
        assertThat(found.laterSegments()).as("segments 3 and 4, after the hole, are dropped").isEqualTo(2);
    }

    @Test
    void truncatedMiddleSegmentAtARecordBoundary() throws IOException {
        int record = recordIn(2, 40);
        Path dir = copy();
        WalTesting.truncate(fileOf(dir, record), fileOffset(record));
        WalCorruption found = assertRepaired(dir, start(record), CorruptionReason.TRUNCATED_SEGMENT);
        assertThat(found.laterSegments()).isEqualTo(2);
        assertThat(found.bytesCut()).isZero();
    }

    @Test
    void truncatedMiddleSegmentInsideARecord() throws IOException {
        int record = recordIn(2, 40);
        Path dir = copy();
        WalTesting.truncate(fileOf(dir, record), fileOffset(record) + 333);
        assertRepaired(dir, start(record), CorruptionReason.TORN_RECORD);
    }

    @Test
    void truncatedLastSegmentAfterItsLastRecord() throws IOException {
        Path dir = copy();
        WalTesting.truncate(segmentFile(dir, 4), WalPosition.offset(written.getLast().endPosition()));
        WalCorruption found = assertRepaired(dir, written.getLast().endPosition(), CorruptionReason.TRUNCATED_SEGMENT);
        assertThat(found.bytesCut()).isZero();
    }

    @Test
    void truncatedSegmentShorterThanItsHeader() throws IOException {
        Path dir = copy();
        WalTesting.truncate(segmentFile(dir, 3), 20);
        assertRepaired(dir, WalPosition.of(3, 0), CorruptionReason.BAD_HEADER);
    }

    @Test
    void badHeaderMagicChecksumAndIndex() throws IOException {
        Path dir = copy();
        WalTesting.flipBit(segmentFile(dir, 2), SegmentDescriptor.MAGIC_OFFSET, 0);
        assertRepaired(dir, WalPosition.of(2, 0), CorruptionReason.BAD_HEADER);

        dir = copy();
        WalTesting.flipBit(segmentFile(dir, 3), SegmentDescriptor.SIZE_OFFSET, 1);
        assertRepaired(dir, WalPosition.of(3, 0), CorruptionReason.BAD_HEADER);

        dir = copy();
        Files.copy(segmentFile(dir, 1), segmentFile(dir, 2), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        WalCorruption found = assertRepaired(dir, WalPosition.of(2, 0), CorruptionReason.BAD_HEADER);
        assertThat(found.detail()).contains("names segment 1");
    }

    @Test
    void badHeaderInTheFirstSegmentLeavesAnEmptyLogThatStillWorks() throws IOException {
        Path dir = copy();
        WalTesting.flipBit(segmentFile(dir, 0), SegmentDescriptor.INDEX_OFFSET, 4);
        WalCorruption found = assertRepaired(dir, WalPosition.of(0, 0), CorruptionReason.BAD_HEADER);
        assertThat(found.laterSegments()).isEqualTo(4);
    }

    @Test
    void newerFormatVersionIsRefusedNotRepaired() throws IOException {
        Path dir = copy();
        Path file = segmentFile(dir, 1);
        byte[] header = java.util.Arrays.copyOf(WalTesting.bytes(file), SegmentDescriptor.HEADER_LENGTH);
        var segment = java.lang.foreign.MemorySegment.ofArray(header);
        SegmentDescriptor.writeHeader(segment, 1, SEGMENT_BYTES);
        segment.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, SegmentDescriptor.VERSION_OFFSET, (short) 2);
        var crc = new java.util.zip.CRC32C();
        crc.update(header, 0, SegmentDescriptor.CRC_OFFSET);
        WalTesting.writeIntLe(file, SegmentDescriptor.CRC_OFFSET, (int) crc.getValue());
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.wrap(header, 0, SegmentDescriptor.CRC_OFFSET), 0);
        }
        byte[] before = WalTesting.bytes(segmentFile(dir, 4));
        assertThatThrownBy(() -> Wal.open(options(dir))).isInstanceOf(WalFormatException.class)
                .hasMessageContaining("version 2");
        assertThat(WalTesting.bytes(segmentFile(dir, 4))).as("nothing was cut").isEqualTo(before);
    }

    @Test
    void unfinishedSegmentCreationsAreRemovedWithoutReportingDamage() throws IOException {
        Path dir = copy();
        Files.write(SegmentDescriptor.tempPath(dir, 5), new byte[SEGMENT_BYTES]);
        Files.write(segmentFile(dir, 5), new byte[SEGMENT_BYTES]);
        assertThat(Wal.inspect(dir).unfinishedSegment()).isTrue();
        try (Wal wal = Wal.open(options(dir))) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            assertThat(wal.openReport().unfinishedRemoved()).isEqualTo(2);
            assertSameRecords(readAll(dir), written, SEED);
        }
        assertThat(segmentFile(dir, 5)).as("recreated only when a record needs it").doesNotExist();
    }

    @Test
    void sealedLastSegmentIsACleanEndAndTheNextClaimRolls() throws IOException {
        Path dir = copy();
        Files.delete(segmentFile(dir, 4));
        int kept = lastRecordOf(3) + 1;
        try (Wal wal = Wal.open(options(dir))) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            assertThat(wal.writtenPosition()).isEqualTo(written.get(kept - 1).endPosition());
            long end = wal.append(1, new byte[10], 0, 10);
            assertThat(WalPosition.segment(end)).isEqualTo(4);
        }
        assertThat(readAll(dir)).hasSize(kept + 1);
    }
}
