package io.sluice.core.head.checkpoint;

import io.sluice.core.head.chunkfiles.PersistFiles;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes one checkpoint file as blocks ({@link CheckpointDescriptor}): a block is assembled in a
 * reusable buffer, then its CRC is appended and it goes to the file. The file is written under a
 * {@code .tmp} name and only {@link #commit()} forces it and renames it into place (then forces
 * the directory), so a crash never leaves a half checkpoint under the final name.
 *
 * <p>Single-threaded (the shard thread while it checkpoints); memory: one buffer of about
 * {@link CheckpointDescriptor#SERIES_BLOCK_BYTES} plus the largest series record.
 */
public final class CheckpointWriter implements AutoCloseable {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    private final Path target;
    private final Path tmp;
    private final FileChannel channel;
    private final CRC32C crc = new CRC32C();
    private byte[] buffer = new byte[CheckpointDescriptor.SERIES_BLOCK_BYTES + (256 << 10)];
    private int length;          // bytes in buffer: the open block, header included
    private boolean blockOpen;
    private long fileBytes;
    private int blocks;
    private boolean committed;

    public CheckpointWriter(Path target) throws IOException {
        this.target = target;
        this.tmp = target.resolveSibling(target.getFileName() + CheckpointDescriptor.TMP_SUFFIX);
        this.channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }

    public void beginBlock(byte kind) {
        if (blockOpen) {
            throw new IllegalStateException("block already open");
        }
        buffer[0] = kind;
        buffer[1] = buffer[2] = buffer[3] = 0;
        length = CheckpointDescriptor.BLOCK_HEADER_BYTES;
        blockOpen = true;
    }

    /** Payload bytes in the open block. */
    public int blockPayloadBytes() {
        return length - CheckpointDescriptor.BLOCK_HEADER_BYTES;
    }

    public void endBlock() throws IOException {
        INT.set(buffer, 4, length - CheckpointDescriptor.BLOCK_HEADER_BYTES);
        crc.reset();
        crc.update(buffer, 0, length);
        ensure(4);
        INT.set(buffer, length, (int) crc.getValue());
        length += 4;
        ByteBuffer out = ByteBuffer.wrap(buffer, 0, length);
        while (out.hasRemaining()) {
            channel.write(out);
        }
        fileBytes += length;
        blocks++;
        length = 0;
        blockOpen = false;
    }

    public void putInt(int v) {
        ensure(4);
        INT.set(buffer, length, v);
        length += 4;
    }

    public void putLong(long v) {
        ensure(8);
        LONG.set(buffer, length, v);
        length += 8;
    }

    public void putShort(int v) {
        ensure(2);
        SHORT.set(buffer, length, (short) v);
        length += 2;
    }

    public void putByte(int v) {
        ensure(1);
        buffer[length++] = (byte) v;
    }

    public void putBytes(byte[] src, int offset, int n) {
        ensure(n);
        System.arraycopy(src, offset, buffer, length, n);
        length += n;
    }

    public void putBytes(MemorySegment src, long offset, int n) {
        ensure(n);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, buffer, length, n);
        length += n;
    }

    private void ensure(int n) {
        if (!blockOpen) {
            throw new IllegalStateException("no block open");
        }
        if (length + n > buffer.length) {
            buffer = java.util.Arrays.copyOf(buffer, Math.max(length + n, buffer.length * 2));
        }
    }

    public long fileBytes() {
        return fileBytes;
    }

    public int blocks() {
        return blocks;
    }

    /** Forces the file, renames it to its final name and forces the directory. */
    public void commit() throws IOException {
        if (blockOpen) {
            throw new IllegalStateException("a block is still open");
        }
        channel.force(true);
        channel.close();
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        PersistFiles.syncDirectory(target.getParent());
        committed = true;
    }

    /** Closes; without a commit the temporary file is deleted. */
    @Override
    public void close() throws IOException {
        if (!committed) {
            channel.close();
            Files.deleteIfExists(tmp);
        }
    }
}
