package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Readers never see uncommitted records, and a reader tailing a live writer sees each record once, in order. */
class WalTailTest {
    private static final long SEED = 0x5EED_0003L;
    private static final int RECORDS = 20_000;

    @TempDir
    Path dir;

    /** Record {@code i} is fully determined by {@code (seed, i)}, so the reader can check it alone. */
    private static int lengthOf(long seed, int i) {
        return new SplittableRandom(seed ^ i).nextInt(0, 1500);
    }

    private static int typeOf(int i) {
        return 1 + i % 255;
    }

    private static byte byteOf(int i, int at) {
        return (byte) (i * 31 + at);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS) // a hang guard only; no test asserts on time
    void readerOnAnotherThreadSeesEveryRecordOnceInOrderAcrossRolls() throws Exception {
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(1 << 20).syncIntervalMs(10).build();
        try (Wal wal = Wal.open(options)) {
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    writeAll(wal);
                } catch (Throwable t) {
                    writerFailure.set(t);
                }
            }, "wal-writer");
            try (WalReader reader = wal.openReader()) {
                writer.start();
                int seen = 0;
                while (seen < RECORDS) {
                    if (!reader.next()) {
                        assertThat(reader.corruption()).as("tailing reader (seed %d)", SEED).isNull();
                        assertThat(writerFailure.get()).as("writer thread").isNull();
                        Thread.onSpinWait();
                        continue;
                    }
                    assertRecord(reader, seen);
                    seen++;
                }
                writer.join();
                assertThat(writerFailure.get()).isNull();
                assertThat(reader.next()).as("nothing after the last record").isFalse();
                assertThat(reader.nextPosition()).isEqualTo(wal.writtenPosition());
            }
            assertThat(wal.metrics().segmentsCreated()).as("the tail crossed rolls").isGreaterThan(10);
        }
    }

    /** The writer's loop: claim in place, write, commit (claiming more than it uses), group-commit syncs. */
    private static void writeAll(Wal wal) throws IOException {
        for (int i = 0; i < RECORDS; i++) {
            int length = lengthOf(SEED, i);
            long at = wal.claim(typeOf(i), length + 100);
            MemorySegment mapping = wal.mapping();
            for (int b = 0; b < length; b++) {
                mapping.set(ValueLayout.JAVA_BYTE, at + b, byteOf(i, b));
            }
            mapping.asSlice(at + length, 100).fill((byte) -1);
            wal.commit(length);
            wal.maybeSync(System.nanoTime());
        }
    }

    private static void assertRecord(WalReader reader, int i) {
        assertThat(reader.type()).as("type of record %d (seed %d)", i, SEED).isEqualTo(typeOf(i));
        assertThat(reader.payloadLength()).as("length of record %d (seed %d)", i, SEED).isEqualTo(lengthOf(SEED, i));
        MemorySegment mapping = reader.mapping();
        long at = reader.payloadOffset();
        for (int b = 0; b < reader.payloadLength(); b++) {
            if (mapping.get(ValueLayout.JAVA_BYTE, at + b) != byteOf(i, b)) {
                throw new AssertionError("record " + i + " byte " + b + " differs (seed " + SEED + ")");
            }
        }
    }

    @Test
    void aClaimIsInvisibleUntilCommittedAndAnAbortedOneNeverAppears() throws IOException {
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 10).build());
             WalReader reader = wal.openReader()) {
            long at = wal.claim(5, 64);
            wal.mapping().asSlice(at, 64).fill((byte) 7);
            assertThat(reader.next()).as("claimed, written, not committed").isFalse();
            assertThat(wal.writtenPosition()).isEqualTo(wal.firstPosition());
            wal.abort();
            assertThat(reader.next()).as("aborted").isFalse();

            at = wal.claim(6, 64);
            wal.mapping().asSlice(at, 10).fill((byte) 9);
            assertThat(reader.next()).isFalse();
            long end = wal.commit(10);
            assertThat(reader.next()).as("committed").isTrue();
            assertThat(reader.type()).isEqualTo(6);
            assertThat(reader.payloadLength()).isEqualTo(10);
            assertThat(reader.mapping().get(ValueLayout.JAVA_BYTE, reader.payloadOffset() + 9)).isEqualTo((byte) 9);
            assertThat(reader.nextPosition()).isEqualTo(end);
            assertThat(reader.next()).isFalse();
        }
    }

    @Test
    void readerWaitsAtAnEndMarkerUntilTheNextSegmentExists() throws IOException {
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(8 << 10).build());
             WalReader reader = wal.openReader()) {
            byte[] payload = new byte[3000];
            wal.append(1, payload, 0, payload.length);
            wal.append(2, payload, 0, payload.length);
            assertThat(WalTesting.drain(reader)).hasSize(2);
            long end = wal.append(3, payload, 0, payload.length);
            assertThat(WalPosition.segment(end)).as("third record rolled").isEqualTo(1);
            assertThat(reader.next()).isTrue();
            assertThat(reader.type()).isEqualTo(3);
            assertThat(reader.position()).isEqualTo(WalPosition.of(1, SegmentDescriptor.HEADER_LENGTH));
        }
    }
}
