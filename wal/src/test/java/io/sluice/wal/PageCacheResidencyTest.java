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
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PageCacheResidency#cachedPages(MemorySegment, long, long, MemorySegment)} with a reused
 * vector counts exactly the range's pages, eight at a time and then one by one, whatever the vector
 * held before (a previous, longer call leaves its bytes behind).
 */
class PageCacheResidencyTest {
    private static final int PAGES = 21; // two longs of the vector and five single bytes

    @TempDir
    Path dir;

    @Test
    void aReusedVectorCountsOnlyTheRangesPages() throws IOException {
        assumeTrue(PageCacheResidency.isAvailable(), "mincore");
        Path file = dir.resolve("data");
        byte[] bytes = new byte[PAGES * 4096];
        new SplittableRandom(0x5EED_0508L).nextBytes(bytes);
        Files.write(file, bytes); // just written: every page is in the page cache
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, arena);
            MemorySegment vector = arena.allocate(PageCacheResidency.vectorBytes(64), Long.BYTES);
            vector.fill((byte) 1); // as if a longer range had been all cached

            assertThat(PageCacheResidency.cachedPages(mapping, 0, bytes.length, vector)).isEqualTo(PAGES);
            assertThat(PageCacheResidency.cachedPages(mapping, 4096, 3 * 4096, vector)).isEqualTo(3);
            assertThat(PageCacheResidency.cachedPages(mapping, 4096 + 100, 10, vector)).as("a partial page counts whole").isEqualTo(1);
            assertThat(PageCacheResidency.cachedPages(mapping, (PAGES - 1) * 4096L, 64 * 4096, vector))
                    .as("clipped to the mapping").isEqualTo(1);
            assertThat(vector.get(ValueLayout.JAVA_BYTE, 40)).as("bytes past the range are not written").isEqualTo((byte) 1);
            assertThat(PageCacheResidency.cachedPages(mapping, 0, bytes.length)).as("the allocating overload").isEqualTo(PAGES);
        }
    }
}
