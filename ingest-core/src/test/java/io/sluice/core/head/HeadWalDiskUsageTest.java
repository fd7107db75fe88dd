package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fresh head with the default 128 MiB WAL segments preallocates small first segments (1 MiB, then
 * doubling), not two full segments per shard: a demo or a test on a small disk costs a few MiB. Chunk
 * files are sparse (their size is not disk), so the whole directory's disk usage is measured with du.
 */
class HeadWalDiskUsageTest {
    @TempDir
    Path dir;

    @Test
    void aFreshHeadTakesAFewMegabytesOfDisk() throws IOException, InterruptedException {
        HeadOptions options = HeadOptions.defaults(dir).withShards(2);
        assertThat(options.perShard().walSegmentBytes()).isEqualTo(128L << 20);
        try (Head head = new Head(options, new StreamRegistry(), new MemoryAccounting())) {
            head.start();
        }
        long walBytes = 0;
        int segments = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (file.getParent().getFileName().toString().equals("wal") && file.getFileName().toString().endsWith(".wal")) {
                    walBytes += Files.size(file); // preallocated whole: its size is disk
                    segments++;
                }
            }
        }
        assertThat(segments).as("WAL segments of 2 shards").isBetween(2, 4);
        assertThat(walBytes).as("bytes of the WAL segments of a fresh 2-shard head").isLessThanOrEqualTo(2 * (1L + 2L) << 20);
        assertThat(diskUsage(dir)).as("disk used by a fresh 2-shard head (du)").isLessThanOrEqualTo(8L << 20);
    }

    /** Bytes of disk allocated under {@code dir}, as du counts them (GNU du). */
    private static long diskUsage(Path dir) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "-s", "--block-size=1", dir.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(du.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(du.exitValue()).as(out).isZero();
        return Long.parseLong(out.strip().split("\\s+")[0]);
    }
}
