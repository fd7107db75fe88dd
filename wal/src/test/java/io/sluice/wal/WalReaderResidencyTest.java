package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader drops the WAL pages it has gone past from the process' resident set: while it reads a
 * 32 MiB segment, the resident part of its mapping (the kernel's own figure, /proc/self/smaps) stays
 * near {@link WalReader#RELEASE_STEP_BYTES}, not the bytes read; and every record still comes back.
 */
class WalReaderResidencyTest {
    private static final long SEED = 0x5EED_0042L;
    private static final int RECORD_BYTES = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void pagesBehindTheReaderLeaveTheResidentSet() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")) && PageAdvice.isAvailable(), "Linux with madvise");
        SplittableRandom random = new SplittableRandom(SEED);
        List<WalTesting.Rec> written;
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(32 << 20).build())) {
            written = WalTesting.appendMany(wal, random, 400, RECORD_BYTES); // ~25 MiB in one segment
        }
        long readBytes = 0;
        long maxResidentBytes = 0;
        int count = 0;
        try (WalReader reader = WalReader.openFirst(dir)) {
            while (reader.next()) {
                WalTesting.Rec expected = written.get(count++);
                byte[] payload = expected.payload();
                assertThat(MemorySegment.mismatch(reader.mapping(), reader.payloadOffset(), reader.payloadOffset() + reader.payloadLength(),
                        MemorySegment.ofArray(payload), 0, payload.length)).as("record %d (seed %d)", count, SEED).isEqualTo(-1L);
                readBytes = reader.payloadOffset() + reader.payloadLength();
                if (count % 8 == 0) {
                    maxResidentBytes = Math.max(maxResidentBytes, residentBytes(reader.mapping().address()));
                }
            }
            assertThat(count).isEqualTo(written.size());
            assertThat(readBytes).isGreaterThan(24L << 20);
            assertThat(reader.releasedBytes()).as("bytes released behind the reader").isGreaterThan(16L << 20);
        }
        // Without the release every page read stays resident (> 24 MiB); with it, one step, the record and
        // what the kernel maps around a fault (read-ahead, fault-around): 5 MiB measured.
        assertThat(maxResidentBytes).as("resident bytes of the mapping while reading")
                .isLessThanOrEqualTo(WalReader.RELEASE_STEP_BYTES + (2L << 20));
    }

    /** The Rss of the mapping that contains {@code address}, from /proc/self/smaps. */
    private static long residentBytes(long address) throws IOException {
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && isHex(line, 0, dash)) {
                long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = address >= start && address < end;
            } else if (inside && line.startsWith("Rss:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no mapping at " + Long.toHexString(address));
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
