package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.wal.WalTesting.Rec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader of an opened {@link Wal} skips the CRC only of the frames open verified in this process
 * ({@link VerifiedFrames}): frames open did not read, frames written after open and readers on a
 * bare directory are checked as before. To see which frames were checksummed, a bit is flipped
 * behind open's back (what the directory lock rules out in service): only unchecked frames notice.
 */
class WalVerifiedFramesTest {
    private static final long SEED = 0x5EED_0099L;
    private static final int SEGMENT_BYTES = 64 << 10;
    private static final int PAYLOAD_BYTES = 1000;
    private static final int RECORDS = 200; // about 64 a segment: segments 0..3

    @TempDir
    Path dir;
    private List<Rec> written;
    private List<WalTesting.Read> layout;

    @BeforeEach
    void writeWal() throws IOException {
        try (Wal wal = Wal.open(options())) {
            written = WalTesting.appendMany(wal, new SplittableRandom(SEED), RECORDS, PAYLOAD_BYTES);
        }
        layout = WalTesting.readAll(dir);
        assertThat(WalPosition.segment(layout.getLast().position())).isEqualTo(3);
    }

    private WalOptions options() {
        return WalOptions.builder(dir).segmentSizeBytes(SEGMENT_BYTES).build();
    }

    /** Flips a payload bit of the {@code i}-th record. */
    private void damagePayloadOf(int i) throws IOException {
        long position = layout.get(i).position();
        WalTesting.flipBit(WalTesting.segmentFile(dir, WalPosition.segment(position)),
                WalPosition.offset(position) + RecordDescriptor.HEADER_LENGTH + 7, 3);
    }

    @Test
    void framesOpenVerifiedAreNotChecksummedAgainByItsReaders() throws IOException {
        try (Wal wal = Wal.open(options())) {
            damagePayloadOf(100); // after open's scan: its readers trust the CRC open checked
            try (WalReader reader = wal.openReader()) {
                assertThat(WalTesting.drain(reader)).hasSize(RECORDS);
                assertThat(reader.corruption()).isNull();
            }
            try (WalReader bare = WalReader.openFirst(dir)) { // not opened through the Wal: checks every CRC
                assertThat(WalTesting.drain(bare)).hasSize(100);
                assertThat(bare.corruption().reason()).isEqualTo(CorruptionReason.BAD_CRC);
            }
        }
        try (Wal reopened = Wal.open(options())) { // and the next open finds and cuts the damage as always
            assertThat(reopened.openReport().corruption().reason()).isEqualTo(CorruptionReason.BAD_CRC);
            assertThat(WalTesting.drain(reopened.openReader())).hasSize(100);
        }
    }

    @Test
    void theFirstFrameAReaderReadsInEachSegmentIsChecked() throws IOException {
        int firstOfSegment1 = firstRecordOf(1);
        try (Wal wal = Wal.open(options())) {
            damagePayloadOf(firstOfSegment1);
            try (WalReader reader = wal.openReader()) {
                assertThat(WalTesting.drain(reader)).hasSize(firstOfSegment1);
                assertThat(reader.corruption().reason()).isEqualTo(CorruptionReason.BAD_CRC);
                assertThat(reader.corruption().segment()).isEqualTo(1);
            }
        }
    }

    @Test
    void aReaderOpenedOffTheFrameChainIsCaught() throws IOException {
        long recordStart = layout.get(5).position();
        long insidePayload = WalPosition.of(WalPosition.segment(recordStart),
                WalPosition.offset(recordStart) + RecordDescriptor.HEADER_LENGTH + 64); // aligned, random bytes
        try (Wal wal = Wal.open(options()); WalReader reader = wal.openReader(insidePayload)) {
            assertThat(reader.next()).isFalse();
            assertThat(reader.corruption()).as("a frame read from the middle of a payload").isNotNull();
        }
    }

    private int firstRecordOf(int segment) {
        int i = 0;
        while (WalPosition.segment(layout.get(i).position()) < segment) {
            i++;
        }
        return i;
    }

    @Test
    void framesWrittenAfterOpenAreChecked() throws IOException {
        try (Wal wal = Wal.open(options())) {
            List<Rec> more = WalTesting.appendMany(wal, new SplittableRandom(SEED + 1), 3, PAYLOAD_BYTES);
            long secondNew = more.get(0).endPosition(); // where the second new record starts
            WalTesting.flipBit(WalTesting.segmentFile(dir, WalPosition.segment(secondNew)),
                    WalPosition.offset(secondNew) + RecordDescriptor.HEADER_LENGTH + 7, 3);
            try (WalReader reader = wal.openReader()) {
                assertThat(WalTesting.drain(reader)).hasSize(RECORDS + 1);
                assertThat(reader.corruption().reason()).isEqualTo(CorruptionReason.BAD_CRC);
                assertThat(reader.corruption().segment()).isEqualTo(WalPosition.segment(secondNew));
            }
        }
    }

    @Test
    void segmentsOpenSkippedAreChecked() throws IOException {
        int firstOfSegment2 = firstRecordOf(2);
        damagePayloadOf(10); // segment 0, which open skips: it lies before the "checkpoint" at segment 2
        try (Wal wal = Wal.open(options(), layout.get(firstOfSegment2).position())) {
            assertThat(wal.unscannedSegments()).isEqualTo(2);
            try (WalReader reader = wal.openReader()) {
                assertThat(WalTesting.drain(reader)).hasSize(10);
                assertThat(reader.corruption().reason()).isEqualTo(CorruptionReason.BAD_CRC);
            }
            try (WalReader fromCheckpoint = wal.openReader(layout.get(firstOfSegment2).position())) {
                assertThat(WalTesting.drain(fromCheckpoint)).hasSize(RECORDS - firstOfSegment2);
                assertThat(fromCheckpoint.corruption()).isNull();
            }
        }
    }
}
