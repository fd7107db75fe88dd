package io.sluice.core.head.persist;

import static io.sluice.core.head.persist.ChunkFileDescriptor.CRC_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.ENTRY_HEADER_BYTES;
import static io.sluice.core.head.persist.ChunkFileDescriptor.FILE_HEADER_BYTES;
import static io.sluice.core.head.persist.ChunkFileDescriptor.LENGTH_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.MAX_TIME_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.MIN_TIME_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.NUM_SAMPLES_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.SERIES_ID_OFFSET;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Appends cut chunks to a shard's current chunk file, a preallocated file mapped into memory
 * (see {@link ChunkFileDescriptor}), rolling to the next file when one is full.
 *
 * <p>Cheap on purpose: an append copies the chunk once into a scratch array (for the CRC), then
 * into the mapping; no fsync, no allocation. Durability comes from {@link #sync()}, which the
 * shard calls when it checkpoints: a checkpoint only references chunks written before its sync.
 * A crash loses unsynced entries, which nothing durable references.
 *
 * <p>A file is created at its full size but sparse, and mapped whole; the writer zero-fills it
 * ahead of itself, {@value #ZERO_FILL_BYTES} bytes at a time, through the channel. So a write into
 * the mapping never needs a new disk block (a full disk shows as an IOException from
 * {@link #append}, not as a SIGBUS), and a shard with few chunks does not cost a whole file of
 * writes.
 *
 * <p>Threads: the shard thread only.
 */
public final class ChunkFileWriter implements AutoCloseable {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int ZERO_FILL_BYTES = 256 << 10;

    private final Path directory;
    private final long fileBytes;
    private final byte[] scratch;
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_FILL_BYTES); // reused: filling allocates nothing
    private FileChannel channel;             // of the current file, for filling ahead
    private Arena arena;
    private MemorySegment mapping;
    private int fileIndex;
    private long offset;
    private long syncedOffset;
    private long filledOffset;               // bytes of the current file known to be allocated on disk
    private long bytesWritten;
    private long chunksWritten;

    /**
     * Continues chunk file {@code fileIndex} at {@code offset} (a position a checkpoint recorded;
     * what lies after it is overwritten), creating the file if it does not exist.
     */
    public ChunkFileWriter(Path directory, long fileBytes, int fileIndex, long offset) throws IOException {
        if (fileBytes < ChunkFileDescriptor.MIN_FILE_BYTES || fileBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("chunk file size must be " + ChunkFileDescriptor.MIN_FILE_BYTES + ".."
                    + Integer.MAX_VALUE + " bytes, not " + fileBytes);
        }
        this.directory = directory;
        this.fileBytes = fileBytes;
        this.scratch = new byte[ChunkFileDescriptor.entryBytes(io.sluice.core.chunk.ChunkMemory.MAX_BLOCK_BYTES)];
        Files.createDirectories(directory);
        open(fileIndex, Math.max(offset, FILE_HEADER_BYTES));
    }

    /**
     * Appends one chunk: {@code length} XOR bytes at {@code source[sourceOffset]}. Returns its ref.
     *
     * @throws IOException if a new file was needed and could not be created (e.g. a full disk); nothing was written
     */
    public long append(int seriesId, MemorySegment source, long sourceOffset, int length, long minTimeMs, long maxTimeMs,
                       int numSamples) throws IOException {
        int entryBytes = ChunkFileDescriptor.entryBytes(length);
        if (entryBytes > scratch.length) {
            throw new IllegalArgumentException("chunk of " + length + " bytes is larger than any head chunk");
        }
        if (offset + entryBytes > mapping.byteSize()) {
            roll();
        }
        if (offset + entryBytes > filledOffset) {
            fillAhead();
        }
        byte[] s = scratch;
        INT.set(s, SERIES_ID_OFFSET, seriesId);
        INT.set(s, LENGTH_OFFSET, length);
        LONG.set(s, MIN_TIME_OFFSET, minTimeMs);
        LONG.set(s, MAX_TIME_OFFSET, maxTimeMs);
        SHORT.set(s, NUM_SAMPLES_OFFSET, (short) numSamples);
        SHORT.set(s, NUM_SAMPLES_OFFSET + 2, (short) 0);
        MemorySegment.copy(source, ValueLayout.JAVA_BYTE, sourceOffset, s, ENTRY_HEADER_BYTES, length);
        for (int i = ENTRY_HEADER_BYTES + length; i < entryBytes; i++) {
            s[i] = 0;
        }
        crc.reset();
        crc.update(s, 0, CRC_OFFSET);
        crc.update(s, ENTRY_HEADER_BYTES, length);
        INT.set(s, CRC_OFFSET, (int) crc.getValue());
        MemorySegment.copy(s, 0, mapping, ValueLayout.JAVA_BYTE, offset, entryBytes);
        long ref = ChunkFileDescriptor.ref(fileIndex, offset);
        offset += entryBytes;
        bytesWritten += entryBytes;
        chunksWritten++;
        return ref;
    }

    /** Where the next chunk goes (a ref); a checkpoint records it so a restart continues there. */
    public long position() {
        return ChunkFileDescriptor.ref(fileIndex, offset);
    }

    public int fileIndex() {
        return fileIndex;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long chunksWritten() {
        return chunksWritten;
    }

    /** Forces what was appended to the current file (earlier files were forced when rolled). */
    public void sync() {
        if (offset > syncedOffset) {
            mapping.force();
            syncedOffset = offset;
        }
    }

    /** Allocates the next stretch of the file on disk by writing zeros (an IOException if the disk is full). */
    private void fillAhead() throws IOException {
        long end = Math.min(mapping.byteSize(), Math.max(offset, filledOffset) + ZERO_FILL_BYTES);
        zeros.clear().limit((int) (end - filledOffset));
        while (zeros.hasRemaining()) {
            channel.write(zeros, filledOffset + zeros.position());
        }
        filledOffset = end;
    }

    private void roll() throws IOException {
        int next = fileIndex + 1;
        Path path = ChunkFileDescriptor.path(directory, next);
        Files.deleteIfExists(path); // a leftover of a crash after a restart point: nothing references it
        createFile(path, next);
        mapping.force();
        arena.close();
        channel.close();
        open(next, FILE_HEADER_BYTES);
    }

    private void open(int index, long startOffset) throws IOException {
        Path path = ChunkFileDescriptor.path(directory, index);
        if (!Files.exists(path)) {
            createFile(path, index);
        }
        Arena a = Arena.ofShared();
        FileChannel c = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = c.size();
            if (size < FILE_HEADER_BYTES || startOffset > size) {
                throw new IOException("chunk file " + path + " has " + size + " bytes, cannot continue at " + startOffset);
            }
            mapping = c.map(FileChannel.MapMode.READ_WRITE, 0, size, a);
        } catch (IOException | RuntimeException e) {
            a.close();
            c.close();
            throw e;
        }
        arena = a;
        channel = c;
        fileIndex = index;
        offset = startOffset;
        syncedOffset = startOffset;
        filledOffset = startOffset; // what follows may be a hole: fill before writing there
    }

    /** Writes a (sparse) file of {@code fileBytes} with its header, forced, then moves it into place. */
    private void createFile(Path path, int index) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(1), fileBytes - 1); // sets the size; the rest is a hole
            ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            header.putInt(ChunkFileDescriptor.MAGIC).put(ChunkFileDescriptor.VERSION).put((byte) 0).putShort((short) 0)
                    .putInt(index).putInt(0).flip();
            channel.write(header, 0);
            channel.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, path, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        PersistFiles.syncDirectory(directory);
    }

    @Override
    public void close() {
        if (arena != null) {
            sync();
            arena.close();
            arena = null;
            try {
                channel.close();
            } catch (IOException e) {
                // nothing to lose: the mapping was forced above
            }
        }
    }
}
