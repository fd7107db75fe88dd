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
 * The kinds of damage a shard WAL suffers on disk (docs/format/wal.md "Damage and repair"), each
 * applied to a stopped server's WAL directory with plain file operations. Frames are found by the
 * documented layout only: 32-byte segment header, then frames of {@code int32 length} (little-endian,
 * 0 = none), each starting at a multiple of 8; type 0 is the end-of-segment marker.
 */
enum WalDamage {
    /** The last record of the newest segment cut short by a crash: its type and payload never written. */
    TORN_LAST_RECORD("TORN_RECORD") {
        @Override
        Damage apply(List<Path> segments) throws IOException {
            Path file = segments.getLast();
            List<int[]> frames = frames(file);
            int[] last = frames.getLast();
            zero(file, last[0] + 8, last[1] - 8);
            return new Damage(file, last[0]);
        }
    },
    /** One bit flipped in a record in the middle of an older segment (bit rot, a bad sector). */
    FLIPPED_BITS("BAD_CRC") {
        @Override
        Damage apply(List<Path> segments) throws IOException {
            Path file = middle(segments);
            int[] frame = middleFrame(file);
            long at = frame[0] + 16 + (frame[1] - 16) / 2;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.seek(at);
                int b = raf.read();
                raf.seek(at);
                raf.write(b ^ 0x10);
            }
            return new Damage(file, frame[0]);
        }
    },
    /** An older segment that lost its end (a copy cut short): the file ends at a record boundary. */
    TRUNCATED_SEGMENT("TRUNCATED_SEGMENT") {
        @Override
        Damage apply(List<Path> segments) throws IOException {
            Path file = middle(segments);
            int[] frame = middleFrame(file);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(frame[0]);
            }
            return new Damage(file, frame[0]);
        }
    },
    /**
     * The newest segment deleted. The WAL alone cannot tell this from a crash between sealing a
     * segment and creating the next (docs/format/wal.md), so there is no WAL finding: the server
     * notices that its own Kafka commit is ahead of its WALs and consumes again from them.
     */
    DELETED_NEWEST_SEGMENT(null) {
        @Override
        Damage apply(List<Path> segments) throws IOException {
            Path file = segments.getLast();
            Files.delete(file);
            return new Damage(file, 0);
        }
    },
    /** A 4 KiB page of an older segment that never reached the disk: zeros where records were. */
    ZEROED_PAGE(null) {
        @Override
        Damage apply(List<Path> segments) throws IOException {
            Path file = middle(segments);
            int[] frame = middleFrame(file);
            int page = Math.max(4096, frame[0] / 4096 * 4096);
            zero(file, page, 4096);
            return new Damage(file, -1);
        }
    };

    /** Where damage was done: the file and the byte offset the WAL should report (-1: not exact). */
    record Damage(Path file, int offset) {
    }

    private final String reason;

    WalDamage(String reason) {
        this.reason = reason;
    }

    /** The {@code CorruptionReason} open and inspection must report, or null when any (or none) may be. */
    String expectedReason() {
        return reason;
    }

    abstract Damage apply(List<Path> segments) throws IOException;

    /** Applies this damage to the WAL in {@code walDir}, which must have at least 3 segments. */
    Damage applyTo(Path walDir) throws IOException {
        List<Path> segments;
        try (Stream<Path> files = Files.list(walDir)) {
            segments = files.filter(p -> p.getFileName().toString().matches("\\d{10}\\.wal")).sorted().toList();
        }
        if (segments.size() < 3) {
            throw new AssertionError("need at least 3 WAL segments to damage, found " + segments + " in " + walDir);
        }
        return apply(segments);
    }

    private static Path middle(List<Path> segments) {
        return segments.get(segments.size() / 2);
    }

    private static int[] middleFrame(Path file) throws IOException {
        List<int[]> frames = frames(file);
        if (frames.size() < 3) {
            throw new AssertionError(file + " has only " + frames.size() + " records");
        }
        return frames.get(frames.size() / 2);
    }

    /** {offset, frame length} of every caller record of a segment (not the end marker). */
    static List<int[]> frames(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        List<int[]> out = new ArrayList<>();
        int offset = 32;
        while (offset + 16 <= b.capacity()) {
            int length = b.getInt(offset);
            int type = b.get(offset + 8) & 0xff;
            if (length < 16 || type == 0) {
                break;
            }
            out.add(new int[] {offset, length});
            offset += (length + 7) & ~7;
        }
        return out;
    }

    private static void zero(Path file, long offset, int length) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(length), offset);
            ch.force(true);
        }
    }
}
