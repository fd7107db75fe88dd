package io.sluice.server.kafka;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Who committed an offset: the commit metadata {@code sluice-head=<uuid>} names the data directory
 * whose WALs hold what the commit covers. The uuid lives in {@code <data.dir>/head.id} (one line of
 * text, docs/crash-safety.md), created on first start.
 *
 * <p>Why: a commit covers only what every shard made durable, so a commit this head made can be
 * ahead of its own WALs only if WAL data was lost after it (a flipped bit, a truncated or deleted
 * segment: open cuts the log there). The consumer then seeks back to the WALs' watermark and
 * consumes the cut records again, rather than trusting the commit and losing them. A commit by
 * another data directory (another instance took the partition meanwhile) still wins as before.
 */
final class HeadIdentity {
    static final String FILE_NAME = "head.id";
    private static final String PREFIX = "sluice-head=";

    private HeadIdentity() {
    }

    /** The commit metadata of the head in {@code dataDir}, creating its id file if there is none. Main thread, at start. */
    static String commitMetadata(Path dataDir) throws IOException {
        return PREFIX + id(dataDir);
    }

    /**
     * The static group member id of the head in {@code dataDir}, {@code sluice-<head id>} (creating the
     * id file if there is none): the same for every start on this data directory, distinct between data
     * directories. Main thread, at start.
     */
    static String memberId(Path dataDir) throws IOException {
        return "sluice-" + id(dataDir);
    }

    private static UUID id(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            create(file);
        }
        String id = Files.readString(file, StandardCharsets.US_ASCII).strip();
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " does not hold a head id (a UUID): '" + id + "'", e);
        }
    }

    /** Written to a temporary file, forced, then renamed: a crash leaves no half-written id. */
    private static void create(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        byte[] text = (UUID.randomUUID() + "\n").getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(text));
            ch.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
