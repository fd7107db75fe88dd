package io.sluice.wal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The segment files of a WAL directory: listing, creating, deleting.
 *
 * <p>A segment is created under a temporary name, preallocated, given its header, and only then
 * renamed to its final name, so a file named {@code NNNNNNNNNN.wal} is always full-size with a
 * header (unless the machine lost power before the directory entry and the blocks reached the disk;
 * open handles that). Leftover temporary files are unfinished creations and are removed on open.
 */
final class SegmentFiles {
    private SegmentFiles() {
    }

    /** The indexes of the segment files in {@code directory}, ascending. */
    static int[] list(Path directory) throws IOException {
        int[] indexes = new int[16];
        int count = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                int index = SegmentDescriptor.parseIndex(file.getFileName().toString());
                if (index >= 0) {
                    if (count == indexes.length) {
                        indexes = Arrays.copyOf(indexes, count * 2);
                    }
                    indexes[count++] = index;
                }
            }
        }
        int[] sorted = Arrays.copyOf(indexes, count);
        Arrays.sort(sorted);
        return sorted;
    }

    /** Deletes temporary files of unfinished segment creations; returns how many. */
    static int deleteTemporaries(Path directory) throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SegmentDescriptor.TEMP_SUFFIX)) {
            for (Path file : files) {
                Files.deleteIfExists(file);
                removed++;
            }
        }
        return removed;
    }

    /**
     * Creates segment {@code index} under its temporary name: preallocated and with its header.
     * On failure (a full disk) the temporary file is removed and nothing else has changed.
     */
    static void prepare(Path directory, int index, int sizeBytes, SegmentPreallocator preallocator)
            throws IOException {
        Path temp = SegmentDescriptor.tempPath(directory, index);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            preallocator.preallocate(temp, channel, 0, sizeBytes);
            if (channel.size() < sizeBytes) {
                throw new IOException("preallocation of " + temp + " left " + channel.size() + " of " + sizeBytes + " bytes");
            }
            ByteBuffer header = ByteBuffer.allocate(SegmentDescriptor.HEADER_LENGTH);
            SegmentDescriptor.writeHeader(MemorySegment.ofBuffer(header), index, sizeBytes);
            while (header.hasRemaining()) {
                channel.write(header, header.position());
            }
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp, e);
            throw e;
        }
    }

    /** Gives the prepared segment its final name and makes the rename durable. */
    static void install(Path directory, int index) throws IOException {
        Files.move(SegmentDescriptor.tempPath(directory, index), SegmentDescriptor.path(directory, index),
                StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(directory);
    }

    /** Removes a prepared but not installed segment. */
    static void discard(Path directory, int index, Exception cause) {
        deleteQuietly(SegmentDescriptor.tempPath(directory, index), cause);
    }

    /** Zero-fills a truncated segment file back to {@code sizeBytes} (real blocks, as on creation). */
    static void extend(Path file, int sizeBytes, SegmentPreallocator preallocator) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size < sizeBytes) {
                preallocator.preallocate(file, channel, size, sizeBytes);
                channel.force(false);
            }
        }
    }

    /** Deletes segments {@code indexes[from..to)} newest first, so a crash part-way leaves no gap. */
    static void deleteNewestFirst(Path directory, int[] indexes, int from, int to) throws IOException {
        for (int i = to - 1; i >= from; i--) {
            Files.deleteIfExists(SegmentDescriptor.path(directory, indexes[i]));
        }
        if (to > from) {
            syncDirectory(directory);
        }
    }

    /** Deletes segments {@code [from, to)} oldest first, so a crash part-way leaves no gap. */
    static int deleteOldestFirst(Path directory, int from, int to) throws IOException {
        int deleted = 0;
        for (int index = from; index < to; index++) {
            if (Files.deleteIfExists(SegmentDescriptor.path(directory, index))) {
                deleted++;
            }
        }
        if (to > from) {
            syncDirectory(directory);
        }
        return deleted;
    }

    static void syncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private static void deleteQuietly(Path file, Exception cause) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
