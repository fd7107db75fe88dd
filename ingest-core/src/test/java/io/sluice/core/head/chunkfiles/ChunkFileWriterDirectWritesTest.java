package io.sluice.core.head.chunkfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 * Direct writes (O_DIRECT, for replay) leave exactly the bytes buffered writes leave, and tell the
 * listener about each chunk once, only after its bytes are in the file: across full buffers (whole
 * blocks written, the partial last block kept), flushes and syncs in between (the padded last block
 * rewritten later), rolls to new files, direct writes turned off and on again, and a writer that
 * continues a file at an unaligned position (the block before it read back).
 */
class ChunkFileWriterDirectWritesTest {
    private static final long FILE_BYTES = 6L << 20; // block-aligned, as the service's (tests elsewhere use unaligned sizes)
    private static final long SEED = 0xD1_2EC7L;

    @TempDir
    Path buffered;
    @TempDir
    Path direct;

    @Test
    void directWritesLeaveTheBytesOfBufferedWritesAndTellEachChunkOnceWhenWritten() throws IOException {
        byte[] data = new byte[4096];
        new SplittableRandom(SEED).nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        long resumeAt = script(buffered, source, false, 0, 0);
        long resumeDirect = script(direct, source, true, 0, 0);
        assertThat(resumeDirect).isEqualTo(resumeAt);
        // A second writer continues each directory at the (unaligned) position the first one ended at.
        script(buffered, source, false, ChunkFileDescriptor.fileIndex(resumeAt), ChunkFileDescriptor.offset(resumeAt));
        script(direct, source, true, ChunkFileDescriptor.fileIndex(resumeAt), ChunkFileDescriptor.offset(resumeAt));
        List<Path> files;
        try (var list = Files.list(buffered)) {
            files = list.map(Path::getFileName).sorted().toList();
        }
        assertThat(files.size()).as("the script rolls files").isGreaterThanOrEqualTo(3);
        for (Path name : files) {
            assertThat(Files.readAllBytes(direct.resolve(name))).as(name.toString()).isEqualTo(Files.readAllBytes(buffered.resolve(name)));
        }
        try (ChunkFileSet set = new ChunkFileSet(direct)) { // the second writer's first chunk (series 0), where the first ended
            assertThat(set.check(resumeAt, 0)).isNull();
        }
    }

    /** Appends seeded chunks with flushes, syncs and (if {@code useDirect}) direct writes toggled; returns the end position. */
    private long script(Path dir, MemorySegment source, boolean useDirect, int fileIndex, long offset) throws IOException {
        SplittableRandom random = new SplittableRandom(SEED + fileIndex);
        List<Long> told = new ArrayList<>();
        List<Long> refs = new ArrayList<>();
        try (ChunkFileMappings mappings = new ChunkFileMappings()) {
            ChunkFileWriter writer = new ChunkFileWriter(dir, FILE_BYTES, fileIndex, offset, mappings, ChunkFileWriter.FlushListener.perChunk((id, ref) -> {
                assertThat(entryInFile(dir, ref)).as("chunk %s told before it is in the file", ChunkFileDescriptor.toString(ref))
                        .isEqualTo(id);
                told.add(ref);
            }));
            if (useDirect) {
                writer.directWrites(true);
                assumeTrue(writer.writesDirect(), "the file system refuses O_DIRECT");
            }
            for (int i = 0; i < 40_000; i++) {
                int length = 1 + random.nextInt(1200);
                refs.add(writer.append(i, source, random.nextInt(4096 - length), length, i, i + 1, 1 + i % 240));
                int event = random.nextInt(5_000);
                if (event == 0) {
                    writer.flush();
                } else if (event == 1) {
                    writer.sync();
                } else if (event == 2 && useDirect) {
                    writer.directWrites(false);
                    assertThat(writer.writesDirect()).isFalse();
                    writer.directWrites(true);
                }
            }
            if (useDirect) {
                writer.directWrites(false);
            }
            writer.sync();
            long end = writer.position();
            writer.close();
            assertThat(told).as("every chunk told once, in order").isEqualTo(refs);
            return end;
        }
    }

    /**
     * The series id of the entry at {@code ref} read from the file with plain reads, if the whole entry
     * is there (its CRC32C matches), else -1: a chunk told before its last byte reached the file fails.
     */
    private static int entryInFile(Path dir, long ref) {
        try (FileChannel c = FileChannel.open(ChunkFileDescriptor.path(dir, ChunkFileDescriptor.fileIndex(ref)), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(ChunkFileDescriptor.ENTRY_HEADER_BYTES + 4096).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            c.read(b, ChunkFileDescriptor.offset(ref));
            int length = b.getInt(ChunkFileDescriptor.LENGTH_OFFSET);
            if (length < 1 || length > 4096) {
                return -1;
            }
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(b.array(), 0, ChunkFileDescriptor.CRC_OFFSET);
            crc.update(b.array(), ChunkFileDescriptor.ENTRY_HEADER_BYTES, length);
            return (int) crc.getValue() == b.getInt(ChunkFileDescriptor.CRC_OFFSET) ? b.getInt(ChunkFileDescriptor.SERIES_ID_OFFSET) : -1;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
