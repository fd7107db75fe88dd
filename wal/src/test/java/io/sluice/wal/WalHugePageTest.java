package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read-only segment mappings ask for transparent huge pages ({@code MADV_HUGEPAGE}): a scan of a segment
 * that is not in the page cache reads it back in 2 MiB folios, which the replay's reader then maps
 * with one page-table entry per 2 MiB ({@code FilePmdMapped} in /proc/self/smaps), while pages behind
 * the reader still leave the resident set and every record reads back as written.
 */
class WalHugePageTest {
    private static final long SEED = 0x5EED_0066L;
    private static final int RECORD_BYTES = 64 << 10;
    private static final int SEGMENT_BYTES = 32 << 20;
    private static final Path THP_ENABLED = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");

    /** Where the probe's page reads go, so that no compiler drops them. */
    private static volatile long sink;

    @TempDir
    Path dir;

    @Test
    void aReadersMappingIsAdvisedHugePages() throws IOException {
        assumeTrue(WalTesting.canMeasureResidency() && transparentHugePagesAllowed(), "Linux, THP madvise or always");
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build())) {
            WalTesting.appendMany(wal, new SplittableRandom(SEED), 16, RECORD_BYTES);
        }
        try (WalReader reader = WalReader.openFirst(dir)) {
            assertThat(reader.next()).isTrue();
            assertThat(WalTesting.smapsLine(reader.mapping().address(), "VmFlags:")).as("the reader's mapping flags")
                    .containsPattern(" hg( |$)");
        }
    }

    @Test
    void aScanOfAnEvictedSegmentLeavesHugeFoliosForTheReplay() throws Throwable {
        assumeTrue(WalTesting.canMeasureResidency() && transparentHugePagesAllowed(), "Linux, THP madvise or always");
        assumeTrue(kernelReadsHugeFoliosInto(dir), "the file system gives a huge-page mapping 2 MiB folios");
        List<WalTesting.Rec> written;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build())) {
            written = WalTesting.appendMany(wal, new SplittableRandom(SEED), 400, RECORD_BYTES); // ~25 MiB
            wal.sync();
        }
        WalTesting.evictFromPageCache(WalTesting.segmentFile(dir, 0));
        long pmdMappedKiB = 0;
        long maxResidentBytes = 0;
        int count = 0;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build()); // the scan reads it back
             WalReader reader = wal.openReader(WalPosition.of(0, 0))) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            while (reader.next()) {
                byte[] payload = written.get(count++).payload();
                assertThat(MemorySegment.mismatch(reader.mapping(), reader.payloadOffset(), reader.payloadOffset() + reader.payloadLength(),
                        MemorySegment.ofArray(payload), 0, payload.length)).as("record %d (seed %d)", count, SEED).isEqualTo(-1L);
                if (count % 8 == 0) {
                    long address = reader.mapping().address();
                    pmdMappedKiB = Math.max(pmdMappedKiB, WalTesting.smapsKiB(address, "FilePmdMapped:"));
                    maxResidentBytes = Math.max(maxResidentBytes, WalTesting.residentBytes(address));
                }
            }
            assertThat(reader.releasedBytes()).as("bytes released behind the reader").isGreaterThan(16L << 20);
        }
        assertThat(count).isEqualTo(written.size());
        assertThat(pmdMappedKiB).as("KiB of the reader's mapping mapped as 2 MiB pages").isGreaterThanOrEqualTo(2048);
        // One release step, the 2 MiB folio the record is in and the rest of the last, 2 MiB aligned, release.
        assertThat(maxResidentBytes).as("resident bytes of the reader's mapping")
                .isLessThanOrEqualTo(MappedSegment.RELEASE_STEP_BYTES + 2 * PageAdvice.HUGE_PAGE_BYTES);
    }

    private static boolean transparentHugePagesAllowed() throws IOException {
        return Files.isReadable(THP_ENABLED) && !Files.readString(THP_ENABLED).contains("[never]");
    }

    /**
     * Whether this kernel and file system put 2 MiB folios into the page cache for a huge-page mapping's
     * faults at all (ext4 since Linux 6.16, XFS; not tmpfs with shmem THP off): a plain file, no WAL code.
     */
    private static boolean kernelReadsHugeFoliosInto(Path directory) throws Throwable {
        Path probe = directory.resolve("thp-probe");
        byte[] bytes = new byte[(int) (2 * PageAdvice.HUGE_PAGE_BYTES)];
        new SplittableRandom(SEED).nextBytes(bytes);
        Files.write(probe, bytes);
        try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.READ)) {
            channel.force(true);
            WalTesting.evictFromPageCache(probe);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, arena);
                if (!PageAdvice.advise(mapping, 0, mapping.byteSize(), PageAdvice.HUGEPAGE)) {
                    return false;
                }
                long sum = 0;
                for (long at = 0; at < mapping.byteSize(); at += PageAdvice.PAGE_BYTES) {
                    sum += mapping.get(ValueLayout.JAVA_BYTE, at);
                }
                sink = sum;
                return WalTesting.smapsKiB(mapping.address(), "FilePmdMapped:") > 0;
            }
        } finally {
            Files.delete(probe);
        }
    }
}
