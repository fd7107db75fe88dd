package io.sluice.wal;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes the golden WAL of format version 1 (wal/src/test/resources/golden/wal-v1), which every
 * later version must still read ({@link WalGoldenTest}). Run it only to create a new golden set for a
 * new format version, never to "fix" the v1 files:
 * {@code java -cp wal/target/classes:wal/target/test-classes io.sluice.wal.GoldenWalGenerator DIR}.
 *
 * <p>Four 4 KiB segments: every payload padding (0 to 7 bytes), an empty payload, types 1 and 255,
 * a claim committed shorter than claimed, an aborted claim, and records that force rolls.
 */
final class GoldenWalGenerator {
    static final int SEGMENT_BYTES = 4096;
    static final String RESOURCE = "golden/wal-v1";

    private GoldenWalGenerator() {
    }

    /** The records the golden WAL holds, in order. */
    static List<WalTesting.Rec> expectedRecords() {
        List<WalTesting.Rec> records = new ArrayList<>();
        records.add(new WalTesting.Rec(1, "sluice golden wal v1".getBytes(StandardCharsets.UTF_8), 0));
        records.add(new WalTesting.Rec(255, new byte[0], 0));
        for (int length = 1; length <= 9; length++) {
            records.add(new WalTesting.Rec(2, pattern(length, length), 0));
        }
        records.add(new WalTesting.Rec(3, pattern(100, 3), 0));
        SplittableRandom random = new SplittableRandom(20261122L);
        for (int i = 0; i < 6; i++) {
            records.add(new WalTesting.Rec(4 + i, pattern(1500 + random.nextInt(500), i), 0));
        }
        records.add(new WalTesting.Rec(42, "the end".getBytes(StandardCharsets.UTF_8), 0));
        return records;
    }

    private static byte[] pattern(int length, int salt) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 7 + salt);
        }
        return bytes;
    }

    /** Writes the golden WAL into {@code dir} (which must be empty or absent). */
    static void write(Path dir) throws IOException {
        List<WalTesting.Rec> records = expectedRecords();
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build())) {
            for (int i = 0; i < records.size(); i++) {
                WalTesting.Rec rec = records.get(i);
                if (i == 3) {
                    long at = wal.claim(7, 300);
                    wal.mapping().asSlice(at, 300).fill((byte) 0x5A);
                    wal.abort();
                }
                if (i == 12) {
                    long at = wal.claim(rec.type(), rec.payload().length + 40);
                    java.lang.foreign.MemorySegment.copy(rec.payload(), 0, wal.mapping(), ValueLayout.JAVA_BYTE, at,
                            rec.payload().length);
                    wal.mapping().asSlice(at + rec.payload().length, 40).fill((byte) 0x33);
                    wal.commit(rec.payload().length);
                } else {
                    wal.append(rec.type(), rec.payload(), 0, rec.payload().length);
                }
            }
        }
        Files.delete(dir.resolve(Wal.LOCK_FILE));
    }

    public static void main(String[] args) throws IOException {
        write(Path.of(args.length > 0 ? args[0] : "wal/src/test/resources/" + RESOURCE));
    }
}
