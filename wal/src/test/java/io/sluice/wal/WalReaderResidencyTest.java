package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader drops the WAL pages it has gone past from the process' resident set: while it reads a
 * 32 MiB segment, the resident part of its mapping (the kernel's own figure, /proc/self/smaps) stays
 * near {@link WalReader#RELEASE_STEP_BYTES}, not the bytes read; and every record still comes back.
 */
class WalReaderResidencyTest {
    private static final long SEED = 0x5EED_0042L;
    private static final int RECORD_BYTES = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void pagesBehindTheReaderLeaveTheResidentSet() throws IOException {
        assumeTrue(WalTesting.canMeasureResidency(), "Linux with madvise");
        SplittableRandom random = new SplittableRandom(SEED);
        List<WalTesting.Rec> written;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(32 << 20).build())) {
            written = WalTesting.appendMany(wal, random, 400, RECORD_BYTES); // ~25 MiB in one segment
        }
        long readBytes = 0;
        long maxResidentBytes = 0;
        int count = 0;
        try (WalReader reader = WalReader.openFirst(dir)) {
            while (reader.next()) {
                WalTesting.Rec expected = written.get(count++);
                byte[] payload = expected.payload();
                assertThat(MemorySegment.mismatch(reader.mapping(), reader.payloadOffset(), reader.payloadOffset() + reader.payloadLength(),
                        MemorySegment.ofArray(payload), 0, payload.length)).as("record %d (seed %d)", count, SEED).isEqualTo(-1L);
                readBytes = reader.payloadOffset() + reader.payloadLength();
                if (count % 8 == 0) {
                    maxResidentBytes = Math.max(maxResidentBytes, WalTesting.residentBytes(reader.mapping().address()));
                }
            }
            assertThat(count).isEqualTo(written.size());
            assertThat(readBytes).isGreaterThan(24L << 20);
            assertThat(reader.releasedBytes()).as("bytes released behind the reader").isGreaterThan(16L << 20);
        }
        // Without the release every page read stays resident (> 24 MiB); with it, one step, the record and
        // what the kernel maps around a fault (read-ahead, fault-around): 5 MiB measured.
        assertThat(maxResidentBytes).as("resident bytes of the mapping while reading")
                .isLessThanOrEqualTo(MappedSegment.RELEASE_STEP_BYTES + (2L << 20));
    }

    /**
     * Open scans every segment and checks that the last one's unwritten tail is all zeros: a mostly
     * empty 32 MiB segment's tail is skipped where the file system knows it is unwritten
     * ({@link FileZeroCheck}) and released behind the scan where it is read, so it stays out of the
     * resident set.
     */
    @Test
    void aScanOfAMostlyEmptySegmentKeepsItsZerosOutOfTheResidentSet() throws IOException {
        assumeTrue(WalTesting.canMeasureResidency(), "Linux with madvise");
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(32 << 20).build())) {
            WalTesting.appendMany(wal, new SplittableRandom(SEED), 16, RECORD_BYTES); // 1 MiB of records, 31 MiB of zeros
        }
        Path file = WalTesting.segmentFile(dir, 0);
        try (MappedSegment segment = MappedSegment.mapReadOnly(file, 0, WalOptions.MAX_SEGMENT_SIZE_BYTES, null)) {
            segment.useDeclaredSize(SegmentDescriptor.declaredSize(segment.mapping));
            SegmentScan scan = SegmentScan.scan(segment, file, true, new long[256]);
            assertThat(scan.isDamaged()).as("%s", scan.detail).isFalse();
            assertThat(scan.records).isEqualTo(16);
            assertThat(WalTesting.residentBytes(segment.mapping.address())).as("resident bytes after the scan")
                    .isLessThanOrEqualTo(MappedSegment.RELEASE_STEP_BYTES + (2L << 20));
        }
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(32 << 20).build())) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            assertThat(wal.openReport().records()).isEqualTo(16);
        }
    }
}
