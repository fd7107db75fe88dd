package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden WAL written by format version 1 (see {@link GoldenWalGenerator}) must be readable by
 * every later version, exactly. Its files are committed; never regenerate them to make this pass.
 */
class WalGoldenTest {
    @TempDir
    Path tmp;

    private static Path golden() throws URISyntaxException {
        return Path.of(WalGoldenTest.class.getClassLoader().getResource(GoldenWalGenerator.RESOURCE).toURI());
    }

    @Test
    void goldenV1ReadsBackExactly() throws Exception {
        List<WalTesting.Read> reads = WalTesting.readAll(golden());
        List<WalTesting.Rec> expected = GoldenWalGenerator.expectedRecords();
        assertThat(reads).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(reads.get(i).type()).as("type of golden record %d", i).isEqualTo(expected.get(i).type());
            assertThat(reads.get(i).payload()).as("payload of golden record %d", i).isEqualTo(expected.get(i).payload());
        }
        assertThat(WalPosition.segment(reads.getLast().position())).as("spans rolls").isGreaterThanOrEqualTo(2);
    }

    @Test
    void goldenV1InspectsCleanAndOpensForAppending() throws Exception {
        WalInspection inspection = Wal.inspect(golden());
        assertThat(inspection.isClean()).as("%s", inspection).isTrue();
        assertThat(inspection.totalRecords()).isEqualTo(GoldenWalGenerator.expectedRecords().size());
        assertThat(inspection.segments()).hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(s -> assertThat(s.declaredBytes()).isEqualTo(4096));

        Path copy = WalTesting.copyDirectory(golden(), tmp.resolve("copy"));
        try (Wal wal = Wal.open(WalOptions.builder(copy).segmentSizeBytes(4096).build())) {
            assertThat(wal.openReport().isClean()).as("%s", wal.openReport()).isTrue();
            wal.append(9, new byte[] {1, 2, 3}, 0, 3);
        }
        assertThat(WalTesting.readAll(copy)).hasSize(GoldenWalGenerator.expectedRecords().size() + 1);
    }

    /** A format guard for the writer side: today's writer produces the golden bytes exactly. */
    @Test
    void thisVersionStillWritesTheGoldenBytes() throws Exception {
        Path fresh = tmp.resolve("fresh");
        GoldenWalGenerator.write(fresh);
        List<String> names = names(golden());
        assertThat(names(fresh)).isEqualTo(names);
        for (String name : names) {
            assertThat(Files.readAllBytes(fresh.resolve(name))).as("bytes of %s", name)
                    .isEqualTo(Files.readAllBytes(golden().resolve(name)));
        }
    }

    /**
     * Parses golden segment 0 with nothing but java.nio and the rules of docs/format/wal.md, so the
     * document and the code cannot drift apart: header fields and CRC, then each frame's length,
     * CRC32C over bytes 0-3 and 8..length-1, type, 8-byte alignment, and the end marker.
     */
    @Test
    void documentedLayoutParsesTheGoldenBytes() throws Exception {
        java.nio.ByteBuffer file = java.nio.ByteBuffer.wrap(Files.readAllBytes(golden().resolve("0000000000.wal")))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(file.getInt(0)).as("magic").isEqualTo(0x4C574C53);
        assertThat(file.getShort(4)).as("format version").isEqualTo((short) 1);
        assertThat(file.getShort(6)).as("header length").isEqualTo((short) 32);
        assertThat(file.getInt(8)).as("segment index").isZero();
        assertThat(file.getInt(12)).as("segment size").isEqualTo(4096);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(file.array(), 0, 28);
        assertThat(file.getInt(28)).as("header crc").isEqualTo((int) crc.getValue());

        List<WalTesting.Rec> expected = GoldenWalGenerator.expectedRecords();
        int offset = 32;
        int record = 0;
        while (true) {
            int frameLength = file.getInt(offset);
            crc.reset();
            crc.update(file.array(), offset, 4);
            crc.update(file.array(), offset + 8, frameLength - 8);
            assertThat(file.getInt(offset + 4)).as("crc of the frame at %d", offset).isEqualTo((int) crc.getValue());
            int type = Byte.toUnsignedInt(file.get(offset + 8));
            if (type == 0) {
                assertThat(frameLength).as("end marker length").isEqualTo(16);
                break;
            }
            assertThat(type).isEqualTo(expected.get(record).type());
            assertThat(java.util.Arrays.copyOfRange(file.array(), offset + 16, offset + frameLength))
                    .isEqualTo(expected.get(record).payload());
            offset += (frameLength + 7) & -8;
            record++;
        }
        assertThat(record).as("records in segment 0").isGreaterThan(10);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return new ArrayList<>(files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }
}
