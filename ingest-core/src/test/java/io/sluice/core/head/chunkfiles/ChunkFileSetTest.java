package io.sluice.core.head.chunkfiles;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding a checkpoint's chunk refs in the scanned files: the lookup guesses an entry's position
 * from the file's average entry size, so it is checked on files whose entries are anything but
 * even (tiny ones, then large ones, then mixed) — every ref is found with its series and sample
 * count, and every position that is not an entry's start is refused.
 */
class ChunkFileSetTest {
    @TempDir
    Path dir;

    @Test
    void everyRefIsFoundAndNoOtherPositionIsTakenForAChunkWhateverTheEntrySizes() throws IOException {
        SplittableRandom random = new SplittableRandom(7);
        byte[] data = new byte[4096];
        random.nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        int n = 6000;
        long[] refs = new long[n];
        int[] lengths = new int[n];
        try (ChunkFileMappings mappings = new ChunkFileMappings();
             ChunkFileWriter writer = new ChunkFileWriter(dir, 8 << 20, 0, 0, mappings, ChunkFileWriter.FlushListener.NONE)) {
            for (int i = 0; i < n; i++) {
                lengths[i] = i < 2000 ? 1 + random.nextInt(8)               // tiny entries first
                        : i < 3000 ? 3000 + random.nextInt(1000)            // then large ones
                        : 1 + random.nextInt(4000);                         // then any size
                refs[i] = writer.append(i, source, 0, lengths[i], i, i + 1, 1 + i % 240);
            }
            writer.sync();
        }
        ChunkFileSet files = new ChunkFileSet(dir);
        for (int i = 0; i < n; i++) {
            assertThat(files.check(refs[i], i)).as("chunk %d", i).isNull();
            assertThat(files.numSamples(refs[i])).isEqualTo(1 + i % 240);
            assertThat(files.check(refs[i], i + 1)).as("chunk %d for another series", i).contains("expected " + (i + 1));
            long inside = refs[i] + 8;   // entries are 8-aligned and longer than 8 bytes: not an entry's start
            assertThat(files.check(inside, i)).as("inside chunk %d", i).isNotNull();
        }
        assertThat(files.check(ChunkFileDescriptor.ref(0, ChunkFileDescriptor.FILE_HEADER_BYTES - 8), 0)).isNotNull();
    }
}
