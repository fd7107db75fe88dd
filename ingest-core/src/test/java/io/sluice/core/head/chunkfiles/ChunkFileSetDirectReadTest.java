package io.sluice.core.head.chunkfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.wal.PageCacheResidency;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chunk files' CRC pass reads with {@code O_DIRECT} (aligned blocks, refills from the aligned
 * block holding an entry): it must find exactly what a pass through the page cache finds — every
 * intact ref, and each damaged entry reported with its file and position, wherever the damage lies
 * (past the first read, in an entry that straddles a block or a read boundary, in the file's last,
 * partial block).
 */
class ChunkFileSetDirectReadTest {
    /** Not a multiple of the alignment: the last block of each file is partial. */
    private static final long FILE_BYTES = (12L << 20) + 1000;

    @TempDir
    Path dir;

    private final SplittableRandom random = new SplittableRandom(11);

    @Test
    void directReadsAreUsedWhereTheFileSystemTakesThemAndTheCacheWhereItHoldsTheFile() throws IOException {
        List<Long> refs = writeChunks(500);
        Path probe = ChunkFileDescriptor.path(dir, 0);
        boolean supported;
        try (DirectReads reads = DirectReads.open(probe, true)) {
            supported = reads.isDirect();
        }
        assumeTrue(supported, "the test directory's file system refuses O_DIRECT");
        assumeTrue(PageCacheResidency.isAvailable(), "mincore");
        PageCacheTesting.evictAll(dir);
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            assertThat(files.check(refs.getFirst(), 0)).isNull();
            assertThat(files.filesReadDirect()).as("a file not in the page cache is read with O_DIRECT").isEqualTo(1);
        }
        try (ChunkFileSet files = new ChunkFileSet(dir, false)) { // reads through the page cache: the file is cached after it
            assertThat(files.check(refs.getFirst(), 0)).isNull();
            assertThat(files.filesReadDirect()).isZero();
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            assertThat(files.check(refs.getFirst(), 0)).isNull();
            assertThat(files.filesReadDirect()).as("a file the page cache holds is read through it").isZero();
        }
    }

    @Test
    void cachedPagesCountsWhatThePageCacheHolds() throws IOException {
        assumeTrue(PageCacheResidency.isAvailable(), "mincore");
        Path file = dir.resolve("data");
        byte[] bytes = new byte[64 * 4096];
        random.nextBytes(bytes);
        Files.write(file, bytes);
        PageCacheTesting.evict(file);
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment mapping = c.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, arena);
            assertThat(PageCacheResidency.cachedPages(mapping, 0, bytes.length)).isZero();
            c.read(ByteBuffer.allocate(10 * 4096), 8 * 4096); // pages 8..17 into the page cache (read-ahead may add more after them)
            assertThat(PageCacheResidency.cachedPages(mapping, 8 * 4096, 10 * 4096)).isEqualTo(10);
            assertThat(PageCacheResidency.cachedPages(mapping, 0, 8 * 4096)).isZero();
            assertThat(PageCacheResidency.cachedPages(mapping, 8 * 4096 + 100, 10)).as("a partial page counts whole").isEqualTo(1);
        }
    }

    @Test
    void directAndBufferedPassesAgreeOnEveryRefOfFilesLongerThanOneRead() throws IOException {
        List<Long> refs = writeChunks(45_000); // ~ 2.3 files of 12 MiB: three reads of 4 MiB each, and a tail
        assertThat(ChunkFileDescriptor.fileIndex(refs.getLast())).isGreaterThanOrEqualTo(2);
        assertSameVerdicts(refs);
    }

    @Test
    void damageAnywhereIsFoundWithFileAndPositionByTheDirectPass() throws IOException {
        List<Long> refs = writeChunks(45_000);
        List<Long> damaged = new ArrayList<>();
        damaged.add(firstRefAfter(refs, 0, ChunkFileScanner.READ_BYTES + 3 * 4096L)); // in the second read
        damaged.add(straddling(refs, 0, 2 * (long) ChunkFileScanner.READ_BYTES));      // across a read boundary
        damaged.add(straddling(refs, 1, 5 * 4096L));                              // across a block boundary
        damaged.add(lastRefOf(refs, 0));                                          // in a full file's last, partial block
        damaged.add(refs.get(refs.size() - 2));                                   // near the end of the last file
        for (long ref : damaged) {
            flipByteOfPayload(ref);
        }
        PageCacheTesting.evictAll(dir); // cold: the pass reads with O_DIRECT
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            for (long ref : damaged) {
                Path path = ChunkFileDescriptor.path(dir, ChunkFileDescriptor.fileIndex(ref));
                assertThat(files.check(ref, seriesOf(refs, ref))).as(ChunkFileDescriptor.toString(ref))
                        .startsWith("chunk file " + path + " position " + ChunkFileDescriptor.offset(ref) + ": CRC32C mismatch");
            }
        }
        assertSameVerdicts(refs);
    }

    @Test
    void scanningAheadOnABackgroundThreadGivesTheVerdictsOfScanningOnDemand() throws IOException {
        List<Long> refs = writeChunks(45_000);
        flipByteOfPayload(refs.get(20_000));
        flipByteOfPayload(lastRefOf(refs, 1));
        try (ChunkFileSet ahead = ChunkFileSet.scanningAhead(dir); ChunkFileSet onDemand = new ChunkFileSet(dir)) {
            for (int i = refs.size() - 1; i >= 0; i--) { // the last file first: the owner waits for the thread's later results
                long ref = refs.get(i);
                assertThat(ahead.check(ref, i)).as(ChunkFileDescriptor.toString(ref)).isEqualTo(onDemand.check(ref, i));
            }
            assertThat(ahead.check(refs.get(20_000), 20_000)).contains("CRC32C mismatch");
            long missing = ChunkFileDescriptor.ref(9, ChunkFileDescriptor.FILE_HEADER_BYTES); // not listed: checked on demand
            assertThat(ahead.check(missing, 0)).isEqualTo("chunk file " + ChunkFileDescriptor.path(dir, 9) + " is missing");
        }
    }

    @Test
    void closeStopsTheBackgroundScan() throws IOException {
        writeChunks(45_000);
        ChunkFileSet ahead = ChunkFileSet.scanningAhead(dir);
        ahead.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("sluice-chunk-scan"));
    }

    @Test
    void aFileTruncatedInsideAnEntryEndsTheScanThereInBothModes() throws IOException {
        List<Long> refs = writeChunks(8_000);
        long cut = straddling(refs, 0, 7 * 4096L);
        try (FileChannel c = FileChannel.open(ChunkFileDescriptor.path(dir, 0), StandardOpenOption.WRITE)) {
            c.truncate(ChunkFileDescriptor.offset(cut) + 40); // 8 bytes of the payload left: not 4096-aligned
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            assertThat(files.check(cut, seriesOf(refs, cut))).contains("position " + ChunkFileDescriptor.offset(cut));
            long before = refs.get(refs.indexOf(cut) - 1);
            assertThat(files.check(before, seriesOf(refs, before))).isNull();
        }
        assertSameVerdicts(refs);
    }

    @Test
    void readsAnyAlignedRangeOfAFileWhoseSizeIsNotAligned() throws IOException {
        Path file = dir.resolve("data");
        byte[] bytes = new byte[3 * 4096 + 777];
        random.nextBytes(bytes);
        Files.write(file, bytes);
        for (boolean direct : new boolean[] {true, false}) {
            ByteBuffer b = DirectReads.buffer(8192);
            try (DirectReads reads = DirectReads.open(file, direct)) {
                for (long position = 0; position <= 4 * 4096; position += 4096) {
                    reads.fill(b, position);
                    int expected = (int) Math.max(0, Math.min(8192, bytes.length - position));
                    assertThat(b.position()).isZero();
                    assertThat(b.limit()).as("direct %s at %d", direct, position).isEqualTo(expected);
                    for (int i = 0; i < expected; i++) {
                        assertThat(b.get(i)).isEqualTo(bytes[(int) position + i]);
                    }
                }
                assertThatThrownBy(() -> reads.fill(b, 100)).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    /** The direct and the page-cache pass return the same verdict (null or the same message) for every ref. */
    private void assertSameVerdicts(List<Long> refs) throws IOException {
        PageCacheTesting.evictAll(dir); // cold, and the direct pass reads each file before the buffered one caches it
        try (ChunkFileSet direct = new ChunkFileSet(dir); ChunkFileSet buffered = new ChunkFileSet(dir, false)) {
            for (int i = 0; i < refs.size(); i++) {
                long ref = refs.get(i);
                String directVerdict = direct.check(ref, i);
                String verdict = buffered.check(ref, i);
                assertThat(directVerdict).as(ChunkFileDescriptor.toString(ref)).isEqualTo(verdict);
                if (verdict == null) {
                    assertThat(direct.numSamples(ref)).isEqualTo(buffered.numSamples(ref)).isEqualTo(1 + i % 240);
                }
            }
        }
    }

    /** Chunk i belongs to series i; payloads of 1..1200 bytes, random. */
    private List<Long> writeChunks(int n) throws IOException {
        byte[] data = new byte[4096];
        random.nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        List<Long> refs = new ArrayList<>();
        try (ChunkFileMappings mappings = new ChunkFileMappings();
             ChunkFileWriter writer = new ChunkFileWriter(dir, FILE_BYTES, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE)) {
            for (int i = 0; i < n; i++) {
                int length = 1 + random.nextInt(1200);
                refs.add(writer.append(i, source, random.nextInt(data.length - length), length, i, i + 1, 1 + i % 240));
            }
            writer.sync();
        }
        return refs;
    }

    private static int seriesOf(List<Long> refs, long ref) {
        return refs.indexOf(ref);
    }

    private static long firstRefAfter(List<Long> refs, int file, long offset) {
        return refs.stream().filter(r -> ChunkFileDescriptor.fileIndex(r) == file && ChunkFileDescriptor.offset(r) >= offset)
                .findFirst().orElseThrow();
    }

    /** The entry of {@code file} holding byte {@code boundary} (it straddles the boundary unless it starts there). */
    private static long straddling(List<Long> refs, int file, long boundary) {
        long previous = -1;
        for (long r : refs) {
            if (ChunkFileDescriptor.fileIndex(r) == file && ChunkFileDescriptor.offset(r) >= boundary) {
                return ChunkFileDescriptor.offset(r) == boundary ? r : previous;
            }
            previous = r;
        }
        throw new IllegalStateException("no entry across " + boundary);
    }

    private static long lastRefOf(List<Long> refs, int file) {
        return refs.stream().filter(r -> ChunkFileDescriptor.fileIndex(r) == file).reduce((a, b) -> b).orElseThrow();
    }

    private void flipByteOfPayload(long ref) throws IOException {
        Path path = ChunkFileDescriptor.path(dir, ChunkFileDescriptor.fileIndex(ref));
        long at = ChunkFileDescriptor.offset(ref) + ChunkFileDescriptor.ENTRY_HEADER_BYTES;
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            c.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x10)).position(0);
            c.write(one, at);
        }
    }
}
