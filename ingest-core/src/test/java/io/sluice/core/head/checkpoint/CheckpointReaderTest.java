package io.sluice.core.head.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckpointReader#verifyNextBlock()} on real files: every block of a sound file passes and
 * reads back; a flipped byte fails exactly the block that holds it, reported at that block's file
 * position, after the blocks before it passed; a header of another version fails the first block.
 */
class CheckpointReaderTest {
    private static final long SEED = 0x5EED_0C4DL;
    private static final int SERIES_BLOCKS = 3;
    private static final int LONGS_PER_BLOCK = 40_000; // 320 KB: a block bigger than a page or two

    @TempDir
    Path dir;

    /** HEADER, STREAMS, three SERIES blocks of seeded longs, END; returns each block's file position. */
    private long[] write(Path file, byte version) throws IOException {
        long[] starts = new long[SERIES_BLOCKS + 3];
        SplittableRandom random = new SplittableRandom(SEED);
        try (CheckpointWriter out = new CheckpointWriter(file)) {
            out.beginBlock(CheckpointDescriptor.HEADER);
            out.putInt(CheckpointDescriptor.MAGIC);
            out.putByte(version);
            out.putByte(0);
            out.putShort(0);
            out.putInt(0);
            out.endBlock();
            starts[1] = out.fileBytes();
            out.beginBlock(CheckpointDescriptor.STREAMS);
            out.putInt(0);
            out.endBlock();
            for (int b = 0; b < SERIES_BLOCKS; b++) {
                starts[2 + b] = out.fileBytes();
                out.beginBlock(CheckpointDescriptor.SERIES);
                for (int i = 0; i < LONGS_PER_BLOCK; i++) {
                    out.putLong(random.nextLong());
                }
                out.endBlock();
            }
            starts[2 + SERIES_BLOCKS] = out.fileBytes();
            out.beginBlock(CheckpointDescriptor.END);
            out.putInt(0);
            out.putInt(0);
            out.endBlock();
            out.commit();
        }
        return starts;
    }

    @Test
    void everyBlockOfASoundFilePassesAndReadsBack() throws IOException {
        Path file = dir.resolve("checkpoint.0000000000000020");
        write(file, CheckpointDescriptor.VERSION);
        SplittableRandom random = new SplittableRandom(SEED);
        int blocks = 0;
        try (CheckpointReader in = new CheckpointReader(file)) {
            while (in.hasNextBlock()) {
                assertThat(in.verifyNextBlock()).isNull();
                if (in.kind() == CheckpointDescriptor.SERIES) {
                    for (int i = 0; i < LONGS_PER_BLOCK; i++) {
                        assertThat(in.getLong()).isEqualTo(random.nextLong());
                    }
                    assertThat(in.hasRemaining()).isFalse();
                }
                blocks++;
            }
            assertThat(in.kind()).isEqualTo(CheckpointDescriptor.END);
            assertThat(in.nextBlockPosition()).isEqualTo(Files.size(file));
        }
        assertThat(blocks).isEqualTo(SERIES_BLOCKS + 3);
    }

    @Test
    void aFlippedByteFailsTheBlockHoldingItAtItsPosition() throws IOException {
        for (int damaged = 0; damaged < SERIES_BLOCKS; damaged++) {
            Path file = dir.resolve("checkpoint." + damaged);
            long[] starts = write(file, CheckpointDescriptor.VERSION);
            long at = starts[2 + damaged] + 8 + 1000L * (damaged + 1);
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.seek(at);
                int b = f.read();
                f.seek(at);
                f.write(b ^ 0x10);
            }
            try (CheckpointReader in = new CheckpointReader(file)) {
                for (int passed = 0; passed < 2 + damaged; passed++) {
                    assertThat(in.verifyNextBlock()).as("block %d before the damaged one", passed).isNull();
                }
                assertThat(in.verifyNextBlock()).contains(file.toString())
                        .contains("position " + starts[2 + damaged] + ": block CRC32C mismatch");
            }
        }
    }

    @Test
    void aVersion2FileStillPassesTheHeader() throws IOException {
        Path file = dir.resolve("checkpoint.v2");
        write(file, (byte) 2);
        try (CheckpointReader in = new CheckpointReader(file)) {
            assertThat(in.verifyNextBlock()).isNull();
        }
    }

    @Test
    void anotherVersionFailsTheHeader() throws IOException {
        Path file = dir.resolve("checkpoint.v1");
        write(file, (byte) 1);
        try (CheckpointReader in = new CheckpointReader(file)) {
            assertThat(in.verifyNextBlock()).contains("position 0: not a version " + CheckpointDescriptor.VERSION);
        }
    }
}
