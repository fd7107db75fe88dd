package io.sluice.core.head.persist;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chunk files: what is appended reads back and checks; damage is named with file and position; appends allocate nothing. */
class ChunkFileWriterTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long FILE_BYTES = 64 << 10;
    @TempDir
    Path dir;

    @Test
    void appendedChunksReadBackAcrossFilesAndDamageIsNamed() throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] data = new byte[1000];
        random.nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        long[] refs = new long[400];
        try (ChunkFileWriter writer = new ChunkFileWriter(dir, FILE_BYTES, 0, 0)) {
            for (int i = 0; i < refs.length; i++) {
                refs[i] = writer.append(i, source, i % 500, 100 + i % 400, i * 1000L, i * 1000L + 999, 120);
            }
            assertThat(writer.fileIndex()).as("rolled over several files").isGreaterThanOrEqualTo(2);
        }
        try (ChunkFileSet files = new ChunkFileSet(dir)) {
            for (int i = 0; i < refs.length; i++) {
                assertThat(files.check(refs[i], i)).isNull();
                assertThat(files.length(refs[i])).isEqualTo(100 + i % 400);
                assertThat(files.minTimeMs(refs[i])).isEqualTo(i * 1000L);
                assertThat(files.maxTimeMs(refs[i])).isEqualTo(i * 1000L + 999);
                assertThat(files.numSamples(refs[i])).isEqualTo(120);
                assertThat(MemorySegment.mismatch(files.segment(refs[i]), ChunkFileSet.bytesOffset(refs[i]),
                        ChunkFileSet.bytesOffset(refs[i]) + 100 + i % 400, source, i % 500, i % 500 + 100 + i % 400)).isEqualTo(-1);
            }
            assertThat(files.check(refs[5], 6)).contains("series 5, expected 6");
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
            assertThat(files.check(refs[8], 8)).isNull();
            assertThat(files.check(ChunkFileDescriptor.ref(99, 16), 1)).contains("missing");
        }
    }

    @Test
    void appendingAChunkAllocatesNothing() throws IOException {
        try (Arena arena = Arena.ofConfined();
             ChunkFileWriter writer = new ChunkFileWriter(dir, 64L << 20, 0, 0)) {
            MemorySegment chunk = arena.allocate(512);
            for (int i = 0; i < 512; i++) {
                chunk.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            for (int i = 0; i < 20_000; i++) { // warm-up
                writer.append(i, chunk, 0, 200 + i % 300, i, i + 1, 120);
            }
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                writer.append(i, chunk, 0, 200 + i % 300, i, i + 1, 120);
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated appending 100,000 chunks").isLessThan(10_000);
        }
    }
}
