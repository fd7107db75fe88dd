package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader asks the kernel to read ahead of it ({@code MADV_WILLNEED}): with the segment evicted
 * from the page cache first, once the reader is a few MiB in, the file's pages 12–28 MiB in front
 * of it are in the page cache (the kernel's own fault read-ahead stops well short of that), and
 * they are not in the process' resident set (read-ahead maps nothing). Every record comes back as
 * written.
 */
class WalReaderReadAheadTest {
    private static final long SEED = 0x5EED_0043L;
    private static final int RECORD_BYTES = 64 << 10;
    /** MADV_WILLNEED only starts the reads: on a loaded machine the disk may take a while to finish them. */
    private static final long READ_AHEAD_DEADLINE_NANOS = 20_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void theDiskReadsAheadOfTheReaderAndTheRecordsAreUnchanged() throws Throwable {
        assumeTrue(WalTesting.canMeasureResidency(), "Linux with madvise");
        SplittableRandom random = new SplittableRandom(SEED);
        List<WalTesting.Rec> written;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 20).build())) {
            written = WalTesting.appendMany(wal, random, 900, RECORD_BYTES); // ~57 MiB in one segment
            wal.sync();
        }
        WalTesting.evictFromPageCache(SegmentDescriptor.path(dir, 0));
        int count = 0;
        long checkedAt = -1;
        try (WalReader reader = WalReader.openFirst(dir)) {
            while (reader.next()) {
                WalTesting.Rec expected = written.get(count++);
                byte[] payload = expected.payload();
                assertThat(MemorySegment.mismatch(reader.mapping(), reader.payloadOffset(), reader.payloadOffset() + reader.payloadLength(),
                        MemorySegment.ofArray(payload), 0, payload.length)).as("record %d (seed %d)", count, SEED).isEqualTo(-1L);
                if (checkedAt < 0 && reader.payloadOffset() > (5 << 20)) {
                    checkedAt = reader.payloadOffset();
                    MemorySegment ahead = reader.mapping().asSlice((checkedAt + (12 << 20)) & -4096, 16 << 20);
                    // At least half: this VM's DAMON reclaim may evict read-ahead pages nobody touched yet
                    // before the test looks; without read-ahead the kernel's own (fault) read-ahead stops
                    // a few MiB ahead of the reader, so almost none of these pages would be cached.
                    assertThat(pagesInPageCacheWithin(ahead, READ_AHEAD_DEADLINE_NANOS))
                            .as("pages 12-28 MiB ahead of the reader in the page cache").isGreaterThanOrEqualTo(ahead.byteSize() / 4096 / 2);
                    assertThat(WalTesting.residentBytes(reader.mapping().address())).as("resident bytes of the mapping")
                            .isLessThan(12L << 20);
                }
            }
        }
        assertThat(count).isEqualTo(written.size());
        assertThat(checkedAt).isPositive();
    }

    @Test
    void aSegmentThePageCacheHoldsIsNotAdvisedAgain() throws Throwable {
        assumeTrue(WalTesting.canMeasureResidency(), "Linux with madvise");
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 20).build())) {
            WalTesting.appendMany(wal, new SplittableRandom(SEED), 900, RECORD_BYTES);
            wal.sync();
        }
        Path segment = SegmentDescriptor.path(dir, 0);
        WalTesting.evictFromPageCache(segment);
        long coldCalls = readAllCountingReadAhead();
        java.nio.file.Files.readAllBytes(segment); // everything in the page cache now
        long cachedCalls = readAllCountingReadAhead();
        assertThat(coldCalls).as("read-ahead calls on a cold segment").isGreaterThan(16);
        assertThat(cachedCalls).as("read-ahead calls on a cached segment (cold: %d)", coldCalls).isLessThan(coldCalls / 4);
    }

    @Test
    void aWalsReaderReadsAheadOnlyTheFramesOpenFound() throws Throwable {
        assumeTrue(WalTesting.canMeasureResidency(), "Linux with madvise");
        Path segment = SegmentDescriptor.path(dir, 0);
        long afterOpen;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 20).build())) {
            WalTesting.appendMany(wal, new SplittableRandom(SEED), 900, RECORD_BYTES); // all written after open
            wal.sync();
            WalTesting.evictFromPageCache(segment);
            afterOpen = readAllCountingReadAhead(wal.openReader());
        }
        long foundAtOpen;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 20).build())) {
            WalTesting.evictFromPageCache(segment);
            foundAtOpen = readAllCountingReadAhead(wal.openReader());
        }
        assertThat(afterOpen).as("read-ahead calls for frames written after open").isZero();
        assertThat(foundAtOpen).as("read-ahead calls for frames open found, cold").isPositive();
    }

    private long readAllCountingReadAhead() throws IOException {
        return readAllCountingReadAhead(WalReader.openFirst(dir));
    }

    private static long readAllCountingReadAhead(WalReader opened) throws IOException {
        try (WalReader reader = opened) {
            long calls = 0;
            while (reader.next()) {
                calls = reader.readAheadCalls();
            }
            return calls;
        }
    }

    /**
     * Polls {@link #pagesInPageCache} until half the pages of {@code range} are cached or the deadline
     * passes; returns the last count. Nothing but the read-ahead asked for these pages, so without it
     * the count stays short and the assertion fails at the deadline.
     */
    private static long pagesInPageCacheWithin(MemorySegment range, long deadlineNanos) throws Throwable {
        long end = System.nanoTime() + deadlineNanos;
        long present = pagesInPageCache(range);
        while (present < range.byteSize() / 4096 / 2 && System.nanoTime() < end) {
            Thread.sleep(20);
            present = pagesInPageCache(range);
        }
        return present;
    }

    /** Pages of {@code range} (page-aligned) present in the page cache: {@code mincore(2)}. */
    private static long pagesInPageCache(MemorySegment range) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle mincore = linker.downcallHandle(linker.defaultLookup().find("mincore").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        int pages = (int) (range.byteSize() / 4096);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(pages);
            int result = (int) mincore.invokeExact(MemorySegment.ofAddress(range.address()), range.byteSize(), vector);
            if (result != 0) {
                throw new IOException("mincore failed");
            }
            long present = 0;
            for (int i = 0; i < pages; i++) {
                present += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return present;
        }
    }
}
