package io.sluice.wal;

import static io.sluice.wal.WalTesting.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's contract: argument checks, group commit, positions, metrics, segment deletion, the lock. */
class WalWriterTest {
    private static final long SEED = 0x5EED_0004L;
    private static final int SEGMENT_BYTES = 64 << 10;

    @TempDir
    Path dir;

    private Wal open() throws IOException {
        return Wal.open(WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).syncIntervalMs(100).build());
    }

    @Test
    void callerBugsAreIllegalArgumentsNotCorruptLogs() throws IOException {
        try (Wal wal = open()) {
            int max = wal.options().maxPayloadLength();
            assertThat(max).isEqualTo(SEGMENT_BYTES - 64);
            assertThatThrownBy(() -> wal.claim(0, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..255");
            assertThatThrownBy(() -> wal.claim(256, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> wal.claim(1, max + 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(String.valueOf(max));
            assertThatThrownBy(() -> wal.claim(1, -1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> wal.commit(0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> wal.append(1, new byte[4], 2, 4)).isInstanceOf(IndexOutOfBoundsException.class);

            wal.claim(1, 10);
            assertThatThrownBy(() -> wal.claim(1, 10)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> wal.commit(11)).isInstanceOf(IllegalArgumentException.class);
            wal.commit(10);

            long end = wal.append(255, new byte[max], 0, max);
            assertThat(WalPosition.offset(end)).as("a maximal record fills a segment, leaving room for the end marker")
                    .isEqualTo(SEGMENT_BYTES - RecordDescriptor.END_MARKER_LENGTH);
        }
        assertThat(readAll(dir)).extracting(WalTesting.Read::type).containsExactly(1, 255);
        assertThat(Wal.inspect(dir).isClean()).isTrue();
    }

    @Test
    void groupCommitSyncsAtMostOncePerIntervalAndOnlyWhenSomethingIsUnsynced() throws IOException {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        try (Wal wal = open()) {
            long t0 = 1_000 * ms;
            assertThat(wal.maybeSync(t0)).as("nothing written").isFalse();
            long first = wal.append(1, new byte[100], 0, 100);
            assertThat(wal.durablePosition()).isLessThan(first);
            assertThat(wal.maybeSync(t0)).as("first sync is immediate").isTrue();
            assertThat(wal.durablePosition()).isEqualTo(first);

            long second = wal.append(1, new byte[100], 0, 100);
            assertThat(wal.maybeSync(t0 + 50 * ms)).as("50 ms after the last sync").isFalse();
            assertThat(wal.durablePosition()).isEqualTo(first);
            assertThat(wal.maybeSync(t0 + 100 * ms)).as("100 ms after").isTrue();
            assertThat(wal.durablePosition()).isEqualTo(second).isEqualTo(wal.writtenPosition());
            assertThat(wal.maybeSync(t0 + 500 * ms)).as("nothing new to sync").isFalse();
            assertThat(wal.metrics().syncs()).isEqualTo(2);
            assertThat(wal.metrics().syncNanosTotal()).isGreaterThanOrEqualTo(wal.metrics().syncNanosMax()).isPositive();

            long at = wal.claim(1, 10);
            wal.mapping().set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, (byte) 1);
            wal.sync();
            assertThat(wal.durablePosition()).as("an open claim is not durable").isEqualTo(second);
            wal.commit(1);
        }
    }

    @Test
    void rollForcesTheOldSegmentSoDurabilityMovesWithIt() throws IOException {
        try (Wal wal = open()) {
            byte[] payload = new byte[SEGMENT_BYTES / 3];
            wal.append(1, payload, 0, payload.length);
            wal.append(1, payload, 0, payload.length);
            long rolled = wal.append(1, payload, 0, payload.length);
            assertThat(WalPosition.segment(rolled)).isEqualTo(1);
            assertThat(wal.durablePosition()).as("segment 0 forced before it was left")
                    .isEqualTo(WalPosition.of(1, SegmentDescriptor.HEADER_LENGTH));
            assertThat(wal.metrics().segmentsCreated()).isEqualTo(2);
        }
    }

    @Test
    void metricsCountWhatWasWritten() throws IOException {
        try (Wal wal = open()) {
            assertThat(wal.metrics().mappedBytes()).isEqualTo(SEGMENT_BYTES);
            wal.append(1, new byte[0], 0, 0);
            wal.append(1, new byte[1], 0, 1);
            wal.append(1, new byte[8], 0, 8);
            assertThat(wal.metrics().recordsWritten()).isEqualTo(3);
            assertThat(wal.metrics().bytesWritten()).as("16 + 24 + 24 bytes of frames").isEqualTo(64);
            try (WalReader reader = wal.openReader()) {
                assertThat(reader.next()).isTrue();
                assertThat(wal.metrics().mappedBytes()).as("the reader's mapping counts").isEqualTo(2L * SEGMENT_BYTES);
            }
            assertThat(wal.metrics().mappedBytes()).isEqualTo(SEGMENT_BYTES);
            assertThat(wal.metrics().toString()).contains("recordsWritten=3");
        }
    }

    @Test
    void rollSegmentStartsANewSegmentOnlyWhenTheCurrentHoldsRecords() throws IOException {
        try (Wal wal = open()) {
            long empty = wal.rollSegment();
            assertThat(empty).as("an empty segment is not rolled").isEqualTo(WalPosition.of(0, SegmentDescriptor.HEADER_LENGTH));
            wal.append(1, new byte[100], 0, 100);
            long next = wal.rollSegment();
            assertThat(next).isEqualTo(WalPosition.of(1, SegmentDescriptor.HEADER_LENGTH));
            assertThat(wal.durablePosition()).as("the sealed segment was forced").isEqualTo(next);
            assertThat(wal.rollSegment()).as("idempotent").isEqualTo(next);
            wal.append(2, new byte[10], 0, 10);
            assertThat(wal.deleteSegmentsBefore(next)).isEqualTo(1);
            try (WalReader reader = wal.openReader(next)) {
                assertThat(reader.next()).isTrue();
                assertThat(reader.type()).isEqualTo(2);
            }
            wal.claim(1, 10);
            assertThatThrownBy(wal::rollSegment).isInstanceOf(IllegalStateException.class);
            wal.abort();
        }
    }

    @Test
    void deleteSegmentsBeforeKeepsThePositionsSegmentAndReadersInDeletedOnes() throws IOException {
        try (Wal wal = open()) {
            List<WalTesting.Rec> written = WalTesting.appendMany(wal, new SplittableRandom(SEED), 300, 1000);
            WalReader early = wal.openReader();
            assertThat(early.next()).isTrue();
            long checkpoint = written.get(200).endPosition();
            int checkpointSegment = WalPosition.segment(checkpoint);

            assertThat(wal.deleteSegmentsBefore(checkpoint)).isEqualTo(checkpointSegment);
            assertThat(wal.firstPosition()).isEqualTo(WalPosition.of(checkpointSegment, SegmentDescriptor.HEADER_LENGTH));
            assertThat(wal.metrics().segmentsDeleted()).isEqualTo(checkpointSegment);
            assertThat(WalTesting.segmentFile(dir, checkpointSegment - 1)).doesNotExist();
            assertThat(WalTesting.segmentFile(dir, checkpointSegment)).exists();
            assertThat(wal.deleteSegmentsBefore(checkpoint)).as("idempotent").isZero();
            assertThat(wal.deleteSegmentsBefore(Long.MAX_VALUE)).as("never the current segment").isEqualTo(
                    WalPosition.segment(wal.writtenPosition()) - checkpointSegment);

            int readEarly = 1;
            while (early.next() && WalPosition.segment(early.position()) == 0) {
                readEarly++;
            }
            assertThat(readEarly).as("a reader inside a deleted segment finishes it").isGreaterThan(50);
            assertThat(early.corruption()).as("then finds the hole").isNotNull();
            assertThat(early.corruption().reason()).isEqualTo(CorruptionReason.MISSING_SEGMENT);
            early.close();

            assertThatThrownBy(() -> wal.openReader(WalPosition.of(0, SegmentDescriptor.HEADER_LENGTH)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("before the first segment");
        }
        try (Wal wal = open()) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            assertThat(readAll(dir)).isNotEmpty();
        }
    }

    @Test
    void aSecondWriterIsRefused() throws IOException {
        try (Wal wal = open()) {
            assertThatThrownBy(this::open).isInstanceOf(IOException.class).hasMessageContaining("another writer");
            wal.append(1, new byte[3], 0, 3);
        }
        try (Wal again = open()) {
            assertThat(again.openReport().records()).isEqualTo(1);
        }
    }

    @Test
    void closeAbortsAnOpenClaimAndIsIdempotent() throws IOException {
        Wal wal = open();
        wal.append(1, new byte[5], 0, 5);
        long at = wal.claim(2, 100);
        wal.mapping().asSlice(at, 100).fill((byte) 3);
        wal.close();
        wal.close();
        try (Wal reopened = open()) {
            assertThat(reopened.openReport().isClean()).as("%s", reopened.openReport()).isTrue();
            assertThat(reopened.openReport().records()).isEqualTo(1);
        }
    }

    @Test
    void inspectionCountsRecordsByTypeAndPrintsReadably() throws IOException {
        try (Wal wal = open()) {
            for (int i = 0; i < 200; i++) {
                wal.append(1 + i % 3, new byte[700], 0, 700);
            }
        }
        WalInspection inspection = Wal.inspect(dir);
        assertThat(inspection.isClean()).isTrue();
        assertThat(inspection.records(1)).isEqualTo(67);
        assertThat(inspection.records(2)).isEqualTo(67);
        assertThat(inspection.records(3)).isEqualTo(66);
        assertThat(inspection.totalRecords()).isEqualTo(200);
        assertThat(inspection.segments()).hasSize(3);
        assertThat(inspection.segments().get(0).sealed()).isTrue();
        assertThat(inspection.segments().get(2).sealed()).isFalse();
        assertThat(inspection.firstRecordPosition()).isEqualTo(WalPosition.of(0, SegmentDescriptor.HEADER_LENGTH));
        assertThat(WalPosition.segment(inspection.endPosition())).isEqualTo(2);
        assertThat(inspection.toString()).contains("records by type: 1=67 2=67 3=66 (total 200)")
                .contains("corruption: none").contains(" yes");
        assertThat(Files.exists(dir.resolve(Wal.LOCK_FILE))).isTrue();
    }

    @Test
    void positionsPackSegmentAndOffsetAndOrderLikeTheLog() {
        long p = WalPosition.of(7, 4096);
        assertThat(WalPosition.segment(p)).isEqualTo(7);
        assertThat(WalPosition.offset(p)).isEqualTo(4096);
        assertThat(WalPosition.of(7, Integer.MAX_VALUE)).isLessThan(WalPosition.of(8, 0));
        assertThat(WalPosition.of(Integer.MAX_VALUE, Integer.MAX_VALUE)).isPositive();
        assertThat(WalPosition.toString(p)).isEqualTo("7:4096");
        assertThatThrownBy(() -> WalPosition.of(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionsValidateSegmentSizeAndInterval() {
        WalOptions defaults = WalOptions.of(dir);
        assertThat(defaults.segmentSizeBytes()).isEqualTo(128 << 20);
        assertThat(defaults.syncIntervalMs()).isEqualTo(100);
        assertThatThrownBy(() -> WalOptions.builder(dir).segmentSizeBytes(5000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 4096");
        assertThatThrownBy(() -> WalOptions.builder(dir).segmentSizeBytes((1 << 30) + 4096).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WalOptions.builder(dir).syncIntervalMs(-1).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
