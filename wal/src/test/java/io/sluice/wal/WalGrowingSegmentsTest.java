package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WAL whose first segment is small: each new segment doubles the one before up to the segment size,
 * a record larger than the next step gets a segment that holds it, every segment is preallocated whole
 * and declares its size, and the existing reader and open read them all back unchanged.
 */
class WalGrowingSegmentsTest {
    private static final long SEED = 0x5eed_600dL;
    @TempDir
    Path dir;

    @Test
    void segmentsGrowFromTheFirstSizeToTheSegmentSizeAndReadBack() throws IOException {
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(64 << 10).firstSegmentSizeBytes(4 << 10).build();
        SplittableRandom random = new SplittableRandom(SEED);
        List<WalTesting.Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(options)) {
            assertThat(Files.size(WalTesting.segmentFile(dir, 0))).as("a fresh WAL's only segment").isEqualTo(4 << 10);
            written.add(WalTesting.append(wal, 1, WalTesting.nonZeroPayload(random, 20_000))); // opens a segment that fits it
            written.addAll(WalTesting.appendMany(wal, random, 300, 1_000));
        }
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; Files.exists(WalTesting.segmentFile(dir, i)); i++) {
            sizes.add(Files.size(WalTesting.segmentFile(dir, i)));
        }
        // 4 KiB (too small for the first record, sealed empty), 20 KiB (its frame rounded up to 4 KiB), then doubling to 64 KiB
        assertThat(sizes.subList(0, 5)).containsExactly(4L << 10, 20L << 10, 40L << 10, 64L << 10, 64L << 10);
        assertThat(sizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(64L << 10));
        WalTesting.assertSameRecords(WalTesting.readAll(dir), written, SEED);

        try (Wal wal = Wal.open(options)) { // reopens the last segment at its own size and goes on
            written.addAll(WalTesting.appendMany(wal, random, 100, 1_000));
        }
        WalTesting.assertSameRecords(WalTesting.readAll(dir), written, SEED);
    }

    @Test
    void withoutAFirstSizeEverySegmentHasTheSegmentSize() throws IOException {
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(16 << 10).build();
        assertThat(options.firstSegmentSizeBytes()).isEqualTo(16 << 10);
        try (Wal wal = Wal.open(options)) {
            WalTesting.appendMany(wal, new SplittableRandom(SEED), 100, 1_000);
        }
        for (int i = 0; Files.exists(WalTesting.segmentFile(dir, i)); i++) {
            assertThat(Files.size(WalTesting.segmentFile(dir, i))).isEqualTo(16 << 10);
        }
    }
}
