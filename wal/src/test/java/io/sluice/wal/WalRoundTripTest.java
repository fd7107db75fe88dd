package io.sluice.wal;

import static io.sluice.wal.WalTesting.assertSameRecords;
import static io.sluice.wal.WalTesting.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.wal.WalTesting.Rec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Random records of 0 B to 1 MiB across many segment rolls, reopened and appended to, all come back exactly. */
class WalRoundTripTest {
    private static final long SEED = 0x5EED_0001L;
    private static final int MAX_PAYLOAD = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void randomRecordsAcrossRollsAndReopensComeBackExactlyInOrder() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED);
        WalOptions options = WalOptions.builder(dir).segmentSizeBytes(2 << 20).build();
        List<Rec> expected = new ArrayList<>();
        for (int session = 0; session < 3; session++) {
            try (Wal wal = Wal.open(options)) {
                assertThat(wal.openReport().isClean()).as("reopen %d: %s (seed %d)", session, wal.openReport(), SEED)
                        .isTrue();
                assertThat(wal.openReport().records()).as("records found on reopen").isEqualTo(expected.size());
                for (int i = 0; i < 120; i++) {
                    expected.add(appendOne(wal, random));
                }
                assertThat(wal.writtenPosition()).isEqualTo(expected.getLast().endPosition());
            }
            assertSameRecords(readAll(dir), expected, SEED);
        }
        Wal.inspect(dir).segments().forEach(s -> assertThat(s.usedBytes()).isLessThanOrEqualTo(s.declaredBytes()));
        assertThat(Wal.inspect(dir).segments()).as("segment rolls (seed %d)", SEED).hasSizeGreaterThan(10);
    }

    /** One record through one of the three write paths, with a size drawn from 0 B to 1 MiB. */
    private static Rec appendOne(Wal wal, SplittableRandom random) throws IOException {
        int length = randomLength(random);
        int type = 1 + random.nextInt(255);
        byte[] payload = new byte[length];
        random.nextBytes(payload);
        return switch (random.nextInt(3)) {
            case 0 -> WalTesting.append(wal, type, payload);
            case 1 -> new Rec(type, payload, wal.append(type, MemorySegment.ofArray(payload)));
            default -> new Rec(type, payload, claimAndCommitLess(wal, type, payload, random));
        };
    }

    /** Claims more than it writes (sometimes after an aborted claim), then commits the real length. */
    private static long claimAndCommitLess(Wal wal, int type, byte[] payload, SplittableRandom random)
            throws IOException {
        if (random.nextInt(4) == 0) {
            long scratch = wal.claim(type, 64);
            wal.mapping().asSlice(scratch, 64).fill((byte) 0x7F);
            wal.abort();
        }
        int slack = Math.min(MAX_PAYLOAD - payload.length, random.nextInt(4096));
        long at = wal.claim(type, payload.length + slack);
        MemorySegment.copy(payload, 0, wal.mapping(), ValueLayout.JAVA_BYTE, at, payload.length);
        wal.mapping().asSlice(at + payload.length, slack).fill((byte) 0x55);
        return wal.commit(payload.length);
    }

    /** Mostly small, some medium, a few up to 1 MiB, and empty ones. */
    private static int randomLength(SplittableRandom random) {
        int bucket = random.nextInt(100);
        if (bucket < 5) {
            return 0;
        } else if (bucket < 60) {
            return random.nextInt(1, 256);
        } else if (bucket < 85) {
            return random.nextInt(256, 64 << 10);
        }
        return random.nextInt(64 << 10, MAX_PAYLOAD + 1);
    }

    @Test
    void readerPositionsChainFromFirstToWrittenPosition() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        try (Wal wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(64 << 10).build())) {
            List<Rec> written = WalTesting.appendMany(wal, random, 300, 500);
            List<WalTesting.Read> reads = readAll(dir);
            assertSameRecords(reads, written, SEED + 1);
            assertThat(reads.getFirst().position()).isEqualTo(wal.firstPosition());
            for (int i = 1; i < reads.size(); i++) {
                long previousEnd = reads.get(i - 1).nextPosition();
                long start = reads.get(i).position();
                boolean sameSegment = WalPosition.segment(start) == WalPosition.segment(previousEnd);
                assertThat(sameSegment ? start : WalPosition.offset(start))
                        .as("record %d starts where %d ended, or at the next segment's start", i, i - 1)
                        .isEqualTo(sameSegment ? previousEnd : (long) SegmentDescriptor.HEADER_LENGTH);
            }
            try (WalReader fromMiddle = wal.openReader(reads.get(150).position())) {
                assertSameRecords(WalTesting.drain(fromMiddle), written.subList(150, 300), SEED + 1);
            }
            try (WalReader atEnd = wal.openReader(wal.writtenPosition())) {
                assertThat(atEnd.next()).as("nothing after the written position").isFalse();
            }
        }
    }
}
