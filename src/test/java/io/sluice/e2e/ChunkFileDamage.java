package io.sluice.e2e;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Damage to a shard's chunk files (docs/format/chunks.md), found by the documented layout only: a
 * 16-byte header, then entries of {@code int32 series id, int32 length (1..4096)}, 24 more header
 * bytes and {@code length} XOR bytes, each entry padded to a multiple of 8.
 */
enum ChunkFileDamage {
    /** One bit flipped in the XOR bytes of a chunk in the middle of the file. */
    FLIPPED_BITS {
        @Override
        String apply(Path file, int[] entry) throws IOException {
            long at = entry[0] + 32 + entry[1] / 2;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.seek(at);
                int b = raf.read();
                raf.seek(at);
                raf.write(b ^ 0x04);
            }
            return "chunk file " + file + " position " + entry[0] + ": CRC32C mismatch";
        }
    },
    /** The file cut at the start of a chunk in its middle (a copy cut short). */
    TRUNCATED {
        @Override
        String apply(Path file, int[] entry) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(entry[0]);
            }
            return "chunk file " + file + " ends (" + entry[0] + " bytes) before the chunk at position ";
        }
    };

    /** Damages the entry {@code {offset, xor length}} of {@code file}; returns what the server must log. */
    abstract String apply(Path file, int[] entry) throws IOException;

    /** Damages the middle chunk of the first chunk file in {@code chunksDir}; returns the expected log text. */
    String applyTo(Path chunksDir) throws IOException {
        Path file;
        try (Stream<Path> files = Files.list(chunksDir)) {
            file = files.filter(p -> p.getFileName().toString().matches("\\d{8}")).sorted().findFirst()
                    .orElseThrow(() -> new AssertionError("no chunk file in " + chunksDir));
        }
        List<int[]> entries = entries(file);
        if (entries.size() < 3) {
            throw new AssertionError(file + " holds only " + entries.size() + " chunks");
        }
        return apply(file, entries.get(entries.size() / 2));
    }

    /** {offset, XOR length} of every chunk entry written so far. */
    static List<int[]> entries(Path file) throws IOException {
        List<int[]> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            long offset = 16;
            while (offset + 32 <= ch.size()) {
                header.clear();
                ch.read(header, offset);
                int length = header.getInt(4);
                if (length < 1 || length > 4096) {
                    break;
                }
                out.add(new int[] {(int) offset, length});
                offset += (32 + length + 7) & ~7;
            }
        }
        return out;
    }
}
