package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.shard.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh head with the default 128 MiB WAL segments preallocates small first segments (1 MiB, then
 * doubling), not two full segments per shard: a demo or a test on a small disk costs a few MiB.
 */
class HeadWalDiskUsageTest {
    @TempDir
    Path dir;

    @Test
    void aFreshHeadsWalsTakeAFewMegabytes() throws IOException {
        HeadOptions options = HeadOptions.defaults(dir).withShards(2);
        assertThat(options.walSegmentBytes()).isEqualTo(128L << 20);
        try (Head head = new Head(options, new StreamRegistry(), new MemoryAccounting())) {
            head.start();
        }
        long walBytes = 0;
        int segments = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (file.getParent().getFileName().toString().equals("wal")) {
                    walBytes += Files.size(file);
                    segments++;
                }
            }
        }
        assertThat(segments).as("WAL segments of 2 shards").isBetween(2, 4);
        assertThat(walBytes).as("bytes of the WAL segments of a fresh 2-shard head").isLessThanOrEqualTo(2 * (1L + 2L) << 20);
    }
}
