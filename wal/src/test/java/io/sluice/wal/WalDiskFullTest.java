package io.sluice.wal;

import static io.sluice.wal.WalTesting.assertSameRecords;
import static io.sluice.wal.WalTesting.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.wal.WalTesting.Rec;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk surfaces as an IOException when a segment is created, the WAL stays consistent and
 * usable, and a later claim succeeds once there is space. The disk is simulated by a preallocator
 * that writes real zeros until a byte budget is spent and then fails as write(2) does (ENOSPC).
 */
class WalDiskFullTest {
    private static final long SEED = 0x5EED_0005L;
    private static final int SEGMENT_BYTES = 64 << 10;

    @TempDir
    Path dir;

    /** Writes zeros like the real preallocator, but only while the budget lasts. */
    private static final class LimitedDisk implements SegmentPreallocator {
        long freeBytes;

        LimitedDisk(long freeBytes) {
            this.freeBytes = freeBytes;
        }

        @Override
        public void preallocate(Path file, FileChannel channel, long fromBytes, long toBytes) throws IOException {
            long wanted = toBytes - fromBytes;
            long granted = Math.min(wanted, freeBytes);
            ZERO_FILL.preallocate(file, channel, fromBytes, fromBytes + granted);
            freeBytes -= granted;
            if (granted < wanted) {
                throw new IOException("No space left on device");
            }
        }
    }

    @Test
    void fullDiskFailsTheRollNotTheLogAndALaterClaimRetries() throws IOException {
        LimitedDisk disk = new LimitedDisk(2L * SEGMENT_BYTES + 1000);
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build();
        SplittableRandom random = new SplittableRandom(SEED);
        List<Rec> written = new ArrayList<>();
        try (Wal wal = Wal.open(options, disk)) {
            IOException full = null;
            while (full == null) {
                try {
                    written.add(WalTesting.append(wal, 1, WalTesting.nonZeroPayload(random, 900)));
                } catch (IOException e) {
                    full = e;
                }
            }
            assertThat(full).hasMessageContaining("No space left");
            assertThat(WalPosition.segment(wal.writtenPosition())).as("failed creating segment 2").isEqualTo(1);
            assertThat(wal.writtenPosition()).isEqualTo(written.getLast().endPosition());
            assertThat(temporaries()).as("the half-made segment was removed").isEmpty();
            assertThat(WalTesting.segmentFile(dir, 2)).doesNotExist();
            assertSameRecords(readAll(dir), written, SEED);

            assertThatThrownBy(() -> wal.claim(1, 900)).as("still full").isInstanceOf(IOException.class);
            wal.sync();
            assertThat(wal.durablePosition()).isEqualTo(wal.writtenPosition());

            disk.freeBytes = 10L * SEGMENT_BYTES;
            for (int i = 0; i < 100; i++) {
                written.add(WalTesting.append(wal, 2, WalTesting.nonZeroPayload(random, 900)));
            }
            assertThat(WalPosition.segment(wal.writtenPosition())).isGreaterThanOrEqualTo(2);
        }
        try (Wal wal = Wal.open(options)) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
        }
        assertSameRecords(readAll(dir), written, SEED);
    }

    @Test
    void fullDiskOnTheFirstSegmentFailsOpenCleanly() throws IOException {
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build();
        assertThatThrownBy(() -> Wal.open(options, new LimitedDisk(1000))).isInstanceOf(IOException.class);
        assertThat(temporaries()).isEmpty();
        try (Wal wal = Wal.open(options)) {
            assertThat(wal.openReport().isClean()).isTrue();
            wal.append(1, new byte[1], 0, 1);
        }
    }

    private List<Path> temporaries() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(SegmentDescriptor.TEMP_SUFFIX)).toList();
        }
    }
}
