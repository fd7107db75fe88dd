package io.sluice.core.head.persist;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Reads a checkpoint file through a read-only mapping: {@link #verify()} checks every block's
 * framing and CRC before anything is applied, then {@link #nextBlock()} and the get methods walk
 * the payloads. Nothing is copied but what the caller asks for. Single-threaded.
 */
public final class CheckpointReader implements AutoCloseable {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment file;
    private long blockStart = -1;
    private long blockEnd;
    private byte kind;
    private long position;

    public CheckpointReader(Path path) throws IOException {
        this.path = path;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            this.file = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    public Path path() {
        return path;
    }

    /**
     * Checks the framing and CRC of every block, that the first is HEADER with this format's magic
     * and version and the last is END. Returns null when sound, else what is wrong and at which
     * byte position of the file.
     */
    public String verify() {
        byte[] scratch = new byte[64 << 10];
        CRC32C crc = new CRC32C();
        long at = 0;
        byte last = 0;
        int index = 0;
        while (at < file.byteSize()) {
            if (at + CheckpointDescriptor.BLOCK_HEADER_BYTES + CheckpointDescriptor.BLOCK_TRAILER_BYTES > file.byteSize()) {
                return "checkpoint " + path + " position " + at + ": truncated block header";
            }
            byte k = file.get(ValueLayout.JAVA_BYTE, at);
            long len = file.get(INT, at + 4) & 0xFFFF_FFFFL;
            long end = at + CheckpointDescriptor.BLOCK_HEADER_BYTES + len;
            if (k < CheckpointDescriptor.HEADER || k > CheckpointDescriptor.END
                    || end + CheckpointDescriptor.BLOCK_TRAILER_BYTES > file.byteSize()) {
                return "checkpoint " + path + " position " + at + ": block of kind " + k + " and length " + len
                        + " does not fit the file (" + file.byteSize() + " bytes)";
            }
            crc.reset();
            for (long p = at; p < end; p += scratch.length) {
                int n = (int) Math.min(scratch.length, end - p);
                MemorySegment.copy(file, ValueLayout.JAVA_BYTE, p, scratch, 0, n);
                crc.update(scratch, 0, n);
            }
            int stored = file.get(INT, end);
            if (stored != (int) crc.getValue()) {
                return String.format("checkpoint %s position %d: block CRC32C mismatch (stored %08x, computed %08x)",
                        path, at, stored, (int) crc.getValue());
            }
            if (index == 0 && (k != CheckpointDescriptor.HEADER || len < 8 || file.get(INT, at + 8) != CheckpointDescriptor.MAGIC
                    || file.get(ValueLayout.JAVA_BYTE, at + 12) != CheckpointDescriptor.VERSION)) {
                return "checkpoint " + path + " position " + at + ": not a version " + CheckpointDescriptor.VERSION + " checkpoint header";
            }
            last = k;
            index++;
            at = end + CheckpointDescriptor.BLOCK_TRAILER_BYTES;
        }
        if (last != CheckpointDescriptor.END) {
            return "checkpoint " + path + " position " + at + ": ends without its END block (truncated)";
        }
        return null;
    }

    /** Moves to the next block (call after {@link #verify()} passed); false after the last. */
    public boolean nextBlock() {
        long next = blockStart < 0 ? 0 : blockEnd + CheckpointDescriptor.BLOCK_TRAILER_BYTES;
        if (next >= file.byteSize()) {
            return false;
        }
        blockStart = next;
        kind = file.get(ValueLayout.JAVA_BYTE, next);
        blockEnd = next + CheckpointDescriptor.BLOCK_HEADER_BYTES + (file.get(INT, next + 4) & 0xFFFF_FFFFL);
        position = next + CheckpointDescriptor.BLOCK_HEADER_BYTES;
        return true;
    }

    public byte kind() {
        return kind;
    }

    /** True while the current block has payload left. */
    public boolean hasRemaining() {
        return position < blockEnd;
    }

    public int getInt() {
        int v = file.get(INT, position);
        position += 4;
        return v;
    }

    public long getLong() {
        long v = file.get(LONG, position);
        position += 8;
        return v;
    }

    public int getShort() {
        int v = file.get(SHORT, position) & 0xFFFF;
        position += 2;
        return v;
    }

    public int getByte() {
        return file.get(ValueLayout.JAVA_BYTE, position++) & 0xFF;
    }

    public void getBytes(byte[] into, int offset, int n) {
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, position, into, offset, n);
        position += n;
    }

    /** The mapping and the position of the next {@code n} payload bytes, which are skipped. */
    public long skip(int n) {
        long at = position;
        position += n;
        return at;
    }

    public MemorySegment mapping() {
        return file;
    }

    /** Byte position in the file of the next read (for messages). */
    public long position() {
        return position;
    }

    @Override
    public void close() {
        arena.close();
    }
}
