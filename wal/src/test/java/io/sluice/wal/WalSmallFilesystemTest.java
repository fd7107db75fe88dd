package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The same promise as {@link WalDiskFullTest} on a real full file system: the JVM gets an
 * IOException, never SIGBUS. Runs only where a small file system is provided, e.g. as root:
 * {@code mount -t tmpfs -o size=1m tmpfs /mnt/small; SLUICE_SMALL_FS=/mnt/small ./mvnw -pl wal test
 * -Dtest=WalSmallFilesystemTest}. Skipped otherwise (the default build has none).
 */
class WalSmallFilesystemTest {
    private static final long SEED = 0x5EED_0006L;

    @Test
    void realFullFilesystemIsAnIOExceptionAndTheLogStaysReadable() throws IOException {
        String small = System.getenv("SLUICE_SMALL_FS");
        Assumptions.assumeTrue(small != null, "set SLUICE_SMALL_FS to a directory on a small file system");
        Path dir = Files.createTempDirectory(Path.of(small), "wal");
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(256 << 10).build();
        SplittableRandom random = new SplittableRandom(SEED);
        List<WalTesting.Rec> written = new ArrayList<>();
        IOException full = null;
        try (Wal wal = Wal.open(options)) {
            while (full == null) {
                try {
                    written.add(WalTesting.append(wal, 1, WalTesting.nonZeroPayload(random, 4000)));
                } catch (IOException e) {
                    full = e;
                }
            }
            wal.sync();
        }
        assertThat(full).as("the file system filled up").isNotNull();
        assertThat(written).hasSizeGreaterThan(60);
        WalTesting.assertSameRecords(WalTesting.readAll(dir), written, SEED);
        try (Wal wal = Wal.open(options)) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
        }
    }
}
