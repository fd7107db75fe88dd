package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After warm-up, appending and reading 1,000,000 records allocates less than a small fixed bound on
 * the calling thread. The bound leaves room for the one segment roll each loop crosses (file names,
 * a channel, an arena: a few KiB per roll), not for anything per record: one byte per record
 * would already be 1,000,000 bytes.
 */
class WalAllocationTest {
    private static final int RECORDS = 1_000_000;
    private static final int WARMUP_RECORDS = 300_000;
    /** 48-byte payloads make 64-byte frames: 1,000,000 of them cross one 64 MiB segment boundary. */
    private static final int PAYLOAD_BYTES = 48;
    private static final long BOUND_BYTES = 64 << 10;

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    private final byte[] bytes = new byte[PAYLOAD_BYTES];
    private long checksum;

    @Test
    void appendingAndReadingAMillionRecordsAllocatesAlmostNothing() throws IOException {
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 20).build());
             Arena arena = Arena.ofConfined();
             WalReader reader = wal.openReader()) {
            MemorySegment source = arena.allocate(PAYLOAD_BYTES);
            appendRecords(wal, source, WARMUP_RECORDS);
            assertThat(readRecords(reader, WARMUP_RECORDS)).isEqualTo(WARMUP_RECORDS);

            long before = THREADS.getCurrentThreadAllocatedBytes();
            appendRecords(wal, source, RECORDS);
            long appendBytes = THREADS.getCurrentThreadAllocatedBytes() - before;

            before = THREADS.getCurrentThreadAllocatedBytes();
            int read = readRecords(reader, RECORDS);
            long readBytes = THREADS.getCurrentThreadAllocatedBytes() - before;

            System.out.printf("allocated: %d bytes appending, %d bytes reading %d records%n", appendBytes, readBytes,
                    RECORDS);
            assertThat(read).isEqualTo(RECORDS);
            assertThat(wal.metrics().segmentsCreated()).as("the measured loops crossed a roll").isGreaterThanOrEqualTo(2);
            assertThat(appendBytes).as("bytes allocated appending %d records", RECORDS).isLessThan(BOUND_BYTES);
            assertThat(readBytes).as("bytes allocated reading %d records", RECORDS).isLessThan(BOUND_BYTES);
            assertThat(checksum).isNotZero();
        }
    }

    /** The three write paths in turn: claim/commit in place, append(byte[]), append(MemorySegment). */
    private void appendRecords(Wal wal, MemorySegment source, int count) throws IOException {
        for (int i = 0; i < count; i++) {
            switch (i % 3) {
                case 0 -> {
                    long at = wal.claim(1, PAYLOAD_BYTES);
                    wal.mapping().set(ValueLayout.JAVA_LONG, at, i);
                    wal.commit(PAYLOAD_BYTES);
                }
                case 1 -> {
                    bytes[0] = (byte) i;
                    wal.append(2, bytes, 0, PAYLOAD_BYTES);
                }
                default -> {
                    source.set(ValueLayout.JAVA_BYTE, 0, (byte) i);
                    wal.append(3, source);
                }
            }
        }
    }

    private int readRecords(WalReader reader, int count) {
        int read = 0;
        while (read < count && reader.next()) {
            checksum += reader.type() + reader.payloadLength()
                    + reader.mapping().get(ValueLayout.JAVA_BYTE, reader.payloadOffset());
            read++;
        }
        return read;
    }
}
