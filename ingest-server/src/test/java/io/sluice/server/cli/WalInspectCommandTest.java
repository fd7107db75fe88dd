package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.TestHeads;
import io.sluice.wal.WalReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `sluice wal inspect` on WALs a real head wrote: record types by name, watermarks, corruption exit code. */
class WalInspectCommandTest {
    @TempDir
    Path dataDir;

    @BeforeEach
    void writeTwoShards() throws IOException {
        try (Head head = new Head(TestHeads.options(dataDir, 2), new StreamRegistry(), new MemoryAccounting())) {
            head.start();
            for (long offset = 0; offset <= 4; offset++) {
                TestHeads.feed(head, "metrics", 0, offset, 20, 1_000 * (offset + 1));
            }
            for (long offset = 10; offset <= 12; offset++) {
                TestHeads.feed(head, "metrics", 3, offset, 20, 1_000 * offset);
            }
            TestHeads.awaitDurable(head, "metrics", 0, 4);
            TestHeads.awaitDurable(head, "metrics", 3, 12);
        }
    }

    @Test
    void dataDirectoryShowsEveryShardWithRecordTypesAndWatermarks() {
        CliRun run = CliRun.run("wal", "inspect", dataDir.toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.err()).isEmpty();
        String out = run.out();
        assertThat(out).contains("WAL " + dataDir.resolve("shard-0").resolve("wal"))
                .contains("WAL " + dataDir.resolve("shard-1").resolve("wal"));
        assertThat(out.indexOf("shard-0")).isLessThan(out.indexOf("shard-1"));
        assertThat(out).containsPattern("records: SERIES=\\d+ SAMPLES=\\d+ OFFSETS=\\d+ \\(total \\d+\\)");
        assertThat(out).containsPattern("metrics/0 +4\n").containsPattern("metrics/3 +12\n");
        assertThat(out).contains("corruption: none").doesNotContain("TYPE_");
    }

    @Test
    void aSingleWalDirectory() {
        CliRun run = CliRun.run("wal", "inspect", dataDir.resolve("shard-1").resolve("wal").toString());
        assertThat(run.exitCode()).isZero();
        assertThat(run.out().lines().filter(l -> l.startsWith("WAL ")).count()).isEqualTo(1);
        assertThat(run.out()).containsPattern("metrics/0 +4\n");
    }

    @Test
    void corruptionIsReportedWithANonZeroExitCode() throws IOException {
        Path wal = dataDir.resolve("shard-0").resolve("wal");
        Path segment;
        try (Stream<Path> files = Files.list(wal)) {
            segment = files.filter(p -> p.toString().endsWith(".wal")).sorted().findFirst().orElseThrow();
        }
        long secondPayload;
        try (WalReader reader = WalReader.openFirst(wal)) {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isTrue();
            secondPayload = reader.payloadOffset();
        }
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            channel.read(b, secondPayload);
            channel.write(ByteBuffer.wrap(new byte[] {(byte) ~b.get(0)}), secondPayload);
        }
        CliRun run = CliRun.run("wal", "inspect", dataDir.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(run.out()).contains("corruption: BAD_CRC at 0:").contains("corruption: none"); // shard 1 is sound
    }

    @Test
    void aMissingDirectoryIsOneLine() {
        CliRun run = CliRun.run("wal", "inspect", dataDir.resolve("absent").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).containsExactly("sluice: wal inspect: " + dataDir.resolve("absent") + " is not a directory");
    }
}
