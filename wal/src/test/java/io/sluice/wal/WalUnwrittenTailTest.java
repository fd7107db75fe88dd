package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.wal.WalTesting.Rec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments are preallocated with {@code posix_fallocate} ({@link SegmentPreallocator#ALLOCATE}), so
 * the untouched end of the last segment is unwritten extents, and open's check that it is all zeros
 * reads only what the file system says may hold data ({@link FileZeroCheck}). These tests show that
 * the check reads next to nothing then, a whole segment when the zeros were written, and that it
 * still finds every non-zero byte: written into the unwritten range, or behind a zeroed page.
 */
class WalUnwrittenTailTest {
    private static final long SEED = 0x5EED_0507L;
    /**
     * Much larger than the kernel's read-around window (read_ahead_kb, 8 MiB on the development VM): the
     * writer's and the scan's page faults read that much of the unwritten range after the records into
     * the page cache, where it counts as data.
     */
    private static final int SEGMENT_BYTES = 64 << 20;

    @TempDir
    Path dir;

    /** Whether this file system keeps fallocated blocks as unwritten extents that SEEK_DATA skips (ext4, XFS: yes; tmpfs: no). */
    private static boolean skipsUnwrittenExtents(Path directory) throws IOException {
        Path probe = directory.resolve("probe");
        try (FileChannel ignored = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            if (!FileExtents.allocate(probe, 0, 1 << 20)) {
                return false;
            }
        }
        try (FileExtents.DataRanges ranges = FileExtents.DataRanges.open(probe)) {
            return ranges.nextData(0, 1 << 20) == 1 << 20;
        } finally {
            Files.delete(probe);
        }
    }

    private List<Rec> writeWal(Path directory, SegmentPreallocator preallocator) throws IOException {
        try (Wal wal = Wal.open(WalOptions.builder(directory).segmentSizeBytes(SEGMENT_BYTES).build(), preallocator)) {
            List<Rec> written = WalTesting.appendMany(wal, new SplittableRandom(SEED), 200, 1000);
            wal.sync();
            return written;
        }
    }

    @Test
    void anUnwrittenTailIsNotReadAndAWrittenOneIsReadWhole() throws IOException {
        Assumptions.assumeTrue(skipsUnwrittenExtents(dir), "the file system reports fallocated blocks as data");
        Path allocated = dir.resolve("allocated");
        Path zeroFilled = dir.resolve("zero-filled");
        List<Rec> written = writeWal(allocated, SegmentPreallocator.ALLOCATE);
        writeWal(zeroFilled, SegmentPreallocator.ZERO_FILL);

        DirectoryScan fast = DirectoryScan.scan(allocated);
        DirectoryScan slow = DirectoryScan.scan(zeroFilled);

        assertThat(fast.corruption).isNull();
        assertThat(slow.corruption).isNull();
        long tailBytes = SEGMENT_BYTES - WalPosition.offset(fast.endPosition());
        assertThat(slow.zeroBytesRead).as("written zeros are read").isEqualTo(tailBytes);
        // only the partly written page at the end of the records and what the page cache holds past it
        // (faults read around them: a read-ahead window or two, not half of a 64 MiB segment)
        assertThat(fast.zeroBytesRead).as("unwritten extents are skipped").isLessThan(tailBytes / 2);
        WalTesting.assertSameRecords(WalTesting.readAll(allocated), written, SEED);
    }

    @Test
    void aByteWrittenIntoTheUnwrittenTailIsFound() throws IOException {
        List<Rec> written = writeWal(dir, SegmentPreallocator.ALLOCATE);
        long end = written.getLast().endPosition();
        Path file = WalTesting.segmentFile(dir, WalPosition.segment(end));
        long strayAt = SEGMENT_BYTES - 3 * 4096 + 1234; // far past the records, inside the unwritten range
        WalTesting.writeIntLe(file, strayAt, 0x01000000);

        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build())) {
            WalCorruption found = wal.openReport().corruption();
            assertThat(found).isNotNull();
            assertThat(found.reason()).isEqualTo(CorruptionReason.ZEROED_REGION);
            assertThat(WalPosition.of(found.segment(), (int) found.offset())).isEqualTo(end);
            assertThat(found.bytesCut()).isEqualTo(strayAt + 4 - WalPosition.offset(end));
        }
        assertThat(WalTesting.readAll(dir)).hasSameSizeAs(written);
    }

    @Test
    void aTornLastRecordBeforeAnUnwrittenTailIsTornNotFlipped() throws IOException {
        List<Rec> written = writeWal(dir, SegmentPreallocator.ALLOCATE);
        long lastStart = written.get(written.size() - 2).endPosition();
        Path file = WalTesting.segmentFile(dir, WalPosition.segment(lastStart));
        WalTesting.flipBit(file, WalPosition.offset(lastStart) + RecordDescriptor.HEADER_LENGTH + 100, 3);

        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build())) {
            WalCorruption found = wal.openReport().corruption();
            assertThat(found.reason()).isEqualTo(CorruptionReason.TORN_RECORD);
            assertThat(found.offset()).isEqualTo(WalPosition.offset(lastStart));
        }
        assertThat(WalTesting.readAll(dir)).hasSize(written.size() - 1);
    }

    @Test
    void tailPagesTheCacheHoldsAreReadAndStillZero() throws IOException {
        List<Rec> written = writeWal(dir, SegmentPreallocator.ALLOCATE);
        long end = written.getLast().endPosition();
        Path file = WalTesting.segmentFile(dir, WalPosition.segment(end));
        // Reading the unwritten tail puts zero pages into the page cache: SEEK_DATA may report them as data now.
        assertThat(WalTesting.endOfData(WalTesting.bytes(file), 0, SEGMENT_BYTES)).isLessThanOrEqualTo(WalPosition.offset(end));

        DirectoryScan scan = DirectoryScan.scan(dir);

        assertThat(scan.corruption).isNull();
        assertThat(scan.endPosition()).isEqualTo(end);
    }
}
