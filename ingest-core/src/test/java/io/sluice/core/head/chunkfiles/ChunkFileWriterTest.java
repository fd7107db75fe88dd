package io.sluice.core.head.chunkfiles;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.core.chunk.ChunkMemory;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chunk files: what is appended is written by pwrite when the buffer fills or on sync, reads back
 * through the read-only mappings, checks on load by positional reads; damage is named with file
 * and position; files stay sparse; appends allocate nothing.
 */
class ChunkFileWriterTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final ValueLayout.OfInt FILE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long FILE_BYTES = 64 << 10;
    @TempDir
    Path dir;

    /**
     * The listener is told in batches, one per write of the buffer: every chunk of a batch is in its
     * file when told (read back through the mapping), each chunk is in exactly one batch, the batches
     * in append order — across rolls (small files), explicit flushes and syncs — and a 1 MiB write
     * tells hundreds of chunks at once, not one call per chunk.
     */
    @Test
    void flushedChunksAreToldInBatchesOncePerWriteInOrder() throws IOException {
        SplittableRandom random = new SplittableRandom(11);
        MemorySegment source = randomBlock(random);
        List<Long> appended = new ArrayList<>();
        List<Long> told = new ArrayList<>();
        List<Integer> batchSizes = new ArrayList<>();
        try (ChunkFileMappings mappings = new ChunkFileMappings()) {
            ChunkFileWriter.FlushListener listener = (seriesIds, appendedAt, refs, count) -> {
                batchSizes.add(count);
                for (int i = 0; i < count; i++) {
                    MemorySegment file = mappings.segment(ChunkFileDescriptor.fileIndex(refs[i]));
                    long at = ChunkFileDescriptor.offset(refs[i]);
                    assertThat(file.get(FILE_INT, at + ChunkFileDescriptor.SERIES_ID_OFFSET))
                            .as("chunk %s told before it is in the file", ChunkFileDescriptor.toString(refs[i])).isEqualTo(seriesIds[i]);
                    told.add(refs[i]);
                }
            };
            try (ChunkFileWriter writer = new ChunkFileWriter(dir, 3L << 20, 0, 0, mappings, listener)) {
                for (int i = 0; i < 30_000; i++) {
                    int length = 1 + random.nextInt(600);
                    appended.add(writer.append(i, source, random.nextInt(ChunkMemory.MAX_BLOCK_BYTES - length), length, i, i + 1, 1));
                    int event = random.nextInt(4_000);
                    if (event == 0) {
                        writer.flush();
                    } else if (event == 1) {
                        writer.sync();
                    }
                }
                writer.sync();
                assertThat(writer.fileIndex()).as("rolled over several files").isGreaterThanOrEqualTo(2);
            }
        }
        assertThat(told).as("each chunk told once, in append order").isEqualTo(appended);
        long calls = batchSizes.stream().filter(n -> n > 0).count();
        assertThat(calls).as("batches, not a call per chunk").isLessThan(appended.size() / 100);
    }

    @Test
    void appendedChunksReadBackThroughTheMappingsAcrossFilesAndDamageIsNamed() throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] data = new byte[1000];
        random.nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        long[] refs = new long[400];
        List<Long> flushed = new ArrayList<>();
        try (ChunkFileMappings mappings = new ChunkFileMappings()) {
            try (ChunkFileWriter writer = new ChunkFileWriter(dir, FILE_BYTES, 0, 0, mappings, ChunkFileWriter.FlushListener.perChunk((id, ref) -> flushed.add(ref)))) {
                for (int i = 0; i < refs.length; i++) {
                    refs[i] = writer.append(i, source, i % 500, 100 + i % 400, i * 1000L, i * 1000L + 999, 120);
                }
                assertThat(writer.fileIndex()).as("rolled over several files").isGreaterThanOrEqualTo(2);
                assertThat(writer.pendingChunks()).as("the current file's chunks wait in the buffer").isPositive();
                writer.sync();
                assertThat(writer.pendingChunks()).isZero();
            }
            assertThat(flushed).as("each chunk reported once, in order, when written").containsExactly(
                    java.util.Arrays.stream(refs).boxed().toArray(Long[]::new));
            for (int i = 0; i < refs.length; i++) {
                MemorySegment file = mappings.segment(ChunkFileDescriptor.fileIndex(refs[i]));
                long at = ChunkFileDescriptor.offset(refs[i]);
                assertThat(file.get(FILE_INT, at + ChunkFileDescriptor.LENGTH_OFFSET)).isEqualTo(100 + i % 400);
                assertThat(MemorySegment.mismatch(file, at + ChunkFileDescriptor.ENTRY_HEADER_BYTES,
                        at + ChunkFileDescriptor.ENTRY_HEADER_BYTES + 100 + i % 400, source, i % 500, i % 500 + 100 + i % 400))
                        .isEqualTo(-1);
            }
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            for (int i = 0; i < refs.length; i++) {
                assertThat(files.check(refs[i], i)).isNull();
                assertThat(files.numSamples(refs[i])).isEqualTo(120);
            }
            assertThat(files.check(refs[5], 6)).contains("series 5, expected 6");
            assertThat(files.check(refs[5] + 8, 5)).contains("no chunk starts there");
        }
        long victim = refs[7];
        Path file = ChunkFileDescriptor.path(dir, ChunkFileDescriptor.fileIndex(victim));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(ChunkFileDescriptor.offset(victim) + 40);
            int b = f.read();
            f.seek(ChunkFileDescriptor.offset(victim) + 40);
            f.write(b ^ 1);
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            assertThat(files.check(victim, 7)).contains(file.toString()).contains("position " + ChunkFileDescriptor.offset(victim))
                    .contains("CRC32C mismatch");
            assertThat(files.check(refs[8], 8)).as("a bad CRC is skipped: the next entry is still found").isNull();
            assertThat(files.check(ChunkFileDescriptor.ref(99, 16), 1)).contains("missing");
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(ChunkFileDescriptor.offset(refs[8]) + 20);
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            assertThat(files.check(refs[8], 8)).contains("ends (").contains("bytes) before the chunk at position " + ChunkFileDescriptor.offset(refs[8]));
        }
    }

    /**
     * The entry layout byte for byte, computed here independently of the writer: header fields, the
     * count's two reserved zero bytes, the CRC32C over header and chunk, and zero padding for every
     * length residue — also once the buffer is reused after a flush and holds the previous entries'
     * bytes where the padding goes.
     */
    @Test
    void entriesAreLaidOutByteForByteWithZeroPaddingAlsoInAReusedBuffer() throws IOException {
        SplittableRandom random = new SplittableRandom(7);
        MemorySegment source = randomBlock(random);
        int entries = 4_000; // ~2 MiB: the 1 MiB buffer is written and reused once or twice
        long[] refs = new long[entries];
        int[] lengths = new int[entries];
        try (ChunkFileMappings mappings = new ChunkFileMappings()) {
            try (ChunkFileWriter writer = new ChunkFileWriter(dir, 8L << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE)) {
                for (int i = 0; i < entries; i++) {
                    lengths[i] = 1 + random.nextInt(i % 2 == 0 ? 16 : 1_000);
                    refs[i] = writer.append(i, source, i % 64, lengths[i], -i, i * 7L, 0x1_0000 - 1 - i % 3);
                }
                writer.sync();
            }
            MemorySegment file = mappings.segment(0);
            ByteOrder le = ByteOrder.LITTLE_ENDIAN;
            for (int i = 0; i < entries; i++) {
                long at = ChunkFileDescriptor.offset(refs[i]);
                int length = lengths[i];
                int entryBytes = ChunkFileDescriptor.entryBytes(length);
                byte[] entry = file.asSlice(at, entryBytes).toArray(ValueLayout.JAVA_BYTE);
                java.nio.ByteBuffer e = java.nio.ByteBuffer.wrap(entry).order(le);
                assertThat(e.getInt(ChunkFileDescriptor.SERIES_ID_OFFSET)).isEqualTo(i);
                assertThat(e.getInt(ChunkFileDescriptor.LENGTH_OFFSET)).isEqualTo(length);
                assertThat(e.getLong(ChunkFileDescriptor.MIN_TIME_OFFSET)).isEqualTo(-i);
                assertThat(e.getLong(ChunkFileDescriptor.MAX_TIME_OFFSET)).isEqualTo(i * 7L);
                assertThat(e.getShort(ChunkFileDescriptor.NUM_SAMPLES_OFFSET) & 0xFFFF).isEqualTo(0x1_0000 - 1 - i % 3);
                assertThat(e.getShort(ChunkFileDescriptor.NUM_SAMPLES_OFFSET + 2)).as("reserved").isZero();
                assertThat(java.util.Arrays.copyOfRange(entry, ChunkFileDescriptor.ENTRY_HEADER_BYTES, ChunkFileDescriptor.ENTRY_HEADER_BYTES + length))
                        .isEqualTo(source.asSlice(i % 64, length).toArray(ValueLayout.JAVA_BYTE));
                for (int p = ChunkFileDescriptor.ENTRY_HEADER_BYTES + length; p < entryBytes; p++) {
                    assertThat(entry[p]).as("padding byte %d of entry %d (length %d)", p, i, length).isZero();
                }
                java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                crc.update(entry, 0, ChunkFileDescriptor.CRC_OFFSET);
                crc.update(entry, ChunkFileDescriptor.ENTRY_HEADER_BYTES, length);
                assertThat(e.getInt(ChunkFileDescriptor.CRC_OFFSET)).isEqualTo((int) crc.getValue());
                if (i + 1 < entries) {
                    assertThat(ChunkFileDescriptor.offset(refs[i + 1])).as("entries follow each other").isEqualTo(at + entryBytes);
                }
            }
        }
    }

    @Test
    void filesAreCreatedSparseAndNothingIsWrittenBeforeTheBufferFillsOrASync() throws IOException {
        try (ChunkFileMappings mappings = new ChunkFileMappings();
             ChunkFileWriter writer = new ChunkFileWriter(dir, 64L << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE)) {
            MemorySegment chunk = MemorySegment.ofArray(new byte[300]);
            long ref = writer.append(3, chunk, 0, 300, 1, 2, 120);
            Path path = ChunkFileDescriptor.path(dir, 0);
            long at = ChunkFileDescriptor.offset(ref);
            assertThat(Files.size(path)).isEqualTo(64L << 20);
            assertThat(mappings.segment(0).get(FILE_INT, at + ChunkFileDescriptor.LENGTH_OFFSET)).as("still buffered").isZero();
            writer.sync();
            assertThat(mappings.segment(0).get(FILE_INT, at + ChunkFileDescriptor.LENGTH_OFFSET)).isEqualTo(300);
            Process stat = new ProcessBuilder("stat", "-c", "%b", path.toString()).start();
            long allocatedBytes = Long.parseLong(new String(stat.getInputStream().readAllBytes()).strip()) * 512;
            assertThat(allocatedBytes).as("disk blocks of a 64 MiB file holding one chunk: no zero fill").isLessThan(1 << 20);
        }
    }

    @Test
    void aFullDiskIsAnIOExceptionFromTheWriteAndTheBufferedChunksAreWrittenOnceSpaceReturns() throws Exception {
        Path mount = dir.resolve("small");
        Files.createDirectories(mount);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        org.junit.jupiter.api.Assumptions.assumeTrue(p.waitFor() == 0, "cannot mount a tmpfs here (needs root): " + out);
        try {
            Path filler = mount.resolve("filler");
            Files.write(filler, new byte[1 << 20]); // half the file system
            Path chunks = mount.resolve("chunks");
            byte[] data = new byte[800];
            new SplittableRandom(7).nextBytes(data);
            MemorySegment source = MemorySegment.ofArray(data);
            List<Long> refs = new ArrayList<>();
            List<Long> flushed = new ArrayList<>();
            IOException full = null;
            try (ChunkFileMappings mappings = new ChunkFileMappings();
                 ChunkFileWriter writer = new ChunkFileWriter(chunks, 8L << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.perChunk((id, ref) -> flushed.add(ref)))) {
                for (int i = 0; i < 4_000 && full == null; i++) { // 3.3 MB of chunks: more than fits
                    try {
                        refs.add(writer.append(i, source, 0, 700 + i % 100, i, i, 120));
                    } catch (IOException e) {
                        full = e;
                    }
                }
                assertThat(full).as("the write on the full disk fails as an IOException (no SIGBUS)").isNotNull()
                        .hasMessageContaining("No space left");
                assertThat(writer.pendingChunks()).as("the unwritten chunks stay buffered").isPositive();
                assertThat(flushed).hasSizeLessThan(refs.size());
                Files.delete(filler);
                writer.sync();
                assertThat(flushed).as("every chunk taken is written once space returns").isEqualTo(refs);
            }
            try (ChunkFileSet files = new ChunkFileSet(chunks)) {
                for (int i = 0; i < refs.size(); i++) {
                    assertThat(files.check(refs.get(i), i)).isNull();
                }
            }
        } finally {
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
        }
    }

    @Test
    void appendingAChunkAllocatesNothing() throws IOException {
        try (Arena arena = Arena.ofConfined();
             ChunkFileMappings mappings = new ChunkFileMappings();
             ChunkFileWriter writer = new ChunkFileWriter(dir, 64L << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE)) {
            MemorySegment chunk = arena.allocate(512);
            for (int i = 0; i < 512; i++) {
                chunk.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            assertAppendingAllocatesNothing(writer, chunk, "bytes allocated appending 100,000 chunks");
        }
    }

    /**
     * With a {@link ChunkFileWriter.ChunkOrder}, each write puts its chunks in rank order, the chunks of
     * series without a rank after them in append order, a series' chunks in their own order; the
     * listener learns where each chunk went (and the ref append returned for it), every entry there is
     * the chunk appended, CRC intact; a flush with unranked chunks says how many.
     */
    @Test
    void aWriteOrdersItsChunksByRankTheUnrankedAfterInAppendOrder() throws IOException {
        SplittableRandom random = new SplittableRandom(5);
        MemorySegment source = randomBlock(random);
        int series = 500;
        int[] rank = new int[series];
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; id < series; id++) {
            ids.add(id);
        }
        java.util.Collections.shuffle(ids, new java.util.Random(3));
        for (int r = 0; r < series; r++) {
            rank[ids.get(r)] = ids.get(r) % 7 == 0 ? -1 : r;
        }
        int[] unrankedTold = new int[1];
        ChunkFileWriter.ChunkOrder order = new ChunkFileWriter.ChunkOrder() {
            @Override
            public int rank(int seriesId) {
                return rank[seriesId];
            }

            @Override
            public void unranked(int chunks) {
                unrankedTold[0] += chunks;
            }
        };
        java.util.Map<Long, long[]> appended = new java.util.HashMap<>(); // ref append returned -> {series, source offset, length}
        List<Long> told = new ArrayList<>();
        List<Long> written = new ArrayList<>();
        int[] unrankedSeen = new int[1];
        try (ChunkFileMappings mappings = new ChunkFileMappings()) {
            ChunkFileWriter.FlushListener listener = (seriesIds, appendedAt, refs, count) -> {
                long lastKey = -1;
                for (int i = 0; i < count; i++) {
                    long[] chunk = appended.get(appendedAt[i]);
                    assertThat(chunk).as("told of a chunk appended at %s", ChunkFileDescriptor.toString(appendedAt[i])).isNotNull();
                    assertThat(seriesIds[i]).isEqualTo((int) chunk[0]);
                    MemorySegment file = mappings.segment(ChunkFileDescriptor.fileIndex(refs[i]));
                    long at = ChunkFileDescriptor.offset(refs[i]);
                    assertThat(file.get(FILE_INT, at + ChunkFileDescriptor.SERIES_ID_OFFSET)).isEqualTo(seriesIds[i]);
                    assertThat(file.get(FILE_INT, at + ChunkFileDescriptor.LENGTH_OFFSET)).isEqualTo((int) chunk[2]);
                    assertThat(MemorySegment.mismatch(file, at + ChunkFileDescriptor.ENTRY_HEADER_BYTES,
                            at + ChunkFileDescriptor.ENTRY_HEADER_BYTES + chunk[2], source, chunk[1], chunk[1] + chunk[2]))
                            .as("the chunk's bytes where the listener was told it is").isEqualTo(-1);
                    int r = rank[seriesIds[i]];
                    if (r < 0) {
                        unrankedSeen[0]++;
                    }
                    // ranked by rank, then the unranked in append order (a series' chunks: append order either way)
                    long key = r >= 0 ? (long) r << 40 | appendedAt[i] & 0xFF_FFFF_FFFFL : Long.MAX_VALUE / 2 + appendedAt[i];
                    assertThat(key).as("chunk %d of this write in order", i).isGreaterThan(lastKey);
                    lastKey = key;
                    if (i > 0) {
                        assertThat(refs[i]).as("file order").isGreaterThan(refs[i - 1]);
                    }
                    told.add(appendedAt[i]);
                    written.add(refs[i]);
                }
            };
            try (ChunkFileWriter writer = new ChunkFileWriter(dir, 3L << 19, 0, 0, mappings, listener, order)) {
                for (int i = 0; i < 12_000; i++) {
                    int length = 1 + random.nextInt(600);
                    int from = random.nextInt(ChunkMemory.MAX_BLOCK_BYTES - length);
                    int id = random.nextInt(series);
                    long ref = writer.append(id, source, from, length, i, i + 1, 1);
                    appended.put(ref, new long[] {id, from, length});
                    if (random.nextInt(3_000) == 0) {
                        writer.flush();
                    }
                }
                writer.sync();
                assertThat(writer.fileIndex()).as("rolled over several files").isGreaterThanOrEqualTo(2);
            }
        }
        assertThat(told).as("each chunk told once").hasSize(appended.size()).doesNotHaveDuplicates();
        assertThat(written).doesNotHaveDuplicates();
        assertThat(written).as("chunks moved within their writes").isNotEqualTo(told);
        assertThat(unrankedTold[0]).isEqualTo(unrankedSeen[0]).isPositive();
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            for (int i = 0; i < told.size(); i++) {
                assertThat(files.check(written.get(i), (int) appended.get(told.get(i))[0])).isNull();
            }
        }
    }

    @Test
    void appendingAndOrderingChunksAllocatesNothing() throws IOException {
        ChunkFileWriter.ChunkOrder order = new ChunkFileWriter.ChunkOrder() {
            @Override
            public int rank(int seriesId) {
                return seriesId % 11 == 0 ? -1 : (seriesId * 7919) % 100_003;
            }

            @Override
            public void unranked(int chunks) {
            }
        };
        try (Arena arena = Arena.ofConfined();
             ChunkFileMappings mappings = new ChunkFileMappings();
             ChunkFileWriter writer = new ChunkFileWriter(dir, 64L << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE, order)) {
            MemorySegment chunk = arena.allocate(512);
            assertAppendingAllocatesNothing(writer, chunk, "bytes allocated appending 100,000 chunks in ordered writes");
        }
    }

    /** 100,000 appends of {@code chunk} (of 200-499 bytes), after 20,000 (several writes) to warm up, allocate under 10 KB. */
    private static void assertAppendingAllocatesNothing(ChunkFileWriter writer, MemorySegment chunk, String what) throws IOException {
        for (int i = 0; i < 20_000; i++) {
            writer.append(i, chunk, 0, 200 + i % 300, i, i + 1, 120);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            writer.append(i, chunk, 0, 200 + i % 300, i, i + 1, 120);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as(what).isLessThan(10_000);
    }

    /** {@link ChunkMemory#MAX_BLOCK_BYTES} random bytes to take chunks from. */
    private static MemorySegment randomBlock(SplittableRandom random) {
        byte[] data = new byte[ChunkMemory.MAX_BLOCK_BYTES];
        random.nextBytes(data);
        return MemorySegment.ofArray(data);
    }
}
