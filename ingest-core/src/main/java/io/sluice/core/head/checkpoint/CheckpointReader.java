package io.sluice.core.head.checkpoint;

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
 * Reads a checkpoint file through a read-only mapping: {@link #verifyNextBlock()} checks each
 * block's framing and CRC and moves to it, so a caller checks the whole file before anything is
 * applied; then {@link #nextBlock()} and the get methods walk the payloads again to apply them. Nothing is copied but what the caller asks for. Single-threaded.
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
    private final CRC32C crc = new CRC32C();

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
     * Moves to the next block after checking it: its framing, its CRC, and for the file's first block
     * that it is a HEADER with this format's magic and version. Returns null when it is sound (then
     * {@link #kind()} and the get methods read it), else what is wrong and at which byte position of
     * the file (the reader then stays where it was). Call while {@link #hasNextBlock()}; a caller
     * that reaches the end must still check that the last block was END. The CRC is computed straight
     * from the mapping: the block is read once here, and again only by whoever decodes it.
     */
    public String verifyNextBlock() {
        long at = blockStart < 0 ? 0 : blockEnd + CheckpointDescriptor.BLOCK_TRAILER_BYTES;
        if (at + CheckpointDescriptor.BLOCK_HEADER_BYTES + CheckpointDescriptor.BLOCK_TRAILER_BYTES > file.byteSize()) {
            return "checkpoint " + path + " position " + at + ": truncated block header";
        }
        byte k = file.get(ValueLayout.JAVA_BYTE, at);
        long len = file.get(INT, at + 4) & 0xFFFF_FFFFL;
        long end = at + CheckpointDescriptor.BLOCK_HEADER_BYTES + len;
        if (k < CheckpointDescriptor.HEADER || k > CheckpointDescriptor.OUT_OF_ORDER
                || end + CheckpointDescriptor.BLOCK_TRAILER_BYTES > file.byteSize()) {
            return "checkpoint " + path + " position " + at + ": block of kind " + k + " and length " + len
                    + " does not fit the file (" + file.byteSize() + " bytes)";
        }
        crc.reset();
        for (long p = at; p < end; p += 1 << 30) { // a view, no copy; slices, as a buffer holds at most 2 GiB
            crc.update(file.asSlice(p, Math.min(1 << 30, end - p)).asByteBuffer());
        }
        int stored = file.get(INT, end);
        if (stored != (int) crc.getValue()) {
            return String.format("checkpoint %s position %d: block CRC32C mismatch (stored %08x, computed %08x)",
                    path, at, stored, (int) crc.getValue());
        }
        if (at == 0 && (k != CheckpointDescriptor.HEADER || len < 8 || file.get(INT, at + 8) != CheckpointDescriptor.MAGIC
                || file.get(ValueLayout.JAVA_BYTE, at + 12) > CheckpointDescriptor.VERSION
                || file.get(ValueLayout.JAVA_BYTE, at + 12) < CheckpointDescriptor.OLDEST_READABLE_VERSION)) {
            return "checkpoint " + path + " position " + at + ": not a version " + CheckpointDescriptor.VERSION
                    + " checkpoint header (versions " + CheckpointDescriptor.OLDEST_READABLE_VERSION + ".." + CheckpointDescriptor.VERSION + " load)";
        }
        nextBlock();
        return null;
    }

    /** Whether a block follows the current one (or, before the first, whether the file holds any byte). */
    public boolean hasNextBlock() {
        return (blockStart < 0 ? 0 : blockEnd + CheckpointDescriptor.BLOCK_TRAILER_BYTES) < file.byteSize();
    }

    /** Where the next block would start: the end of the file once every block was read (for messages). */
    public long nextBlockPosition() {
        return blockStart < 0 ? 0 : blockEnd + CheckpointDescriptor.BLOCK_TRAILER_BYTES;
    }

    /** Moves to the next block without checking it (call on a file whose blocks {@link #verifyNextBlock()} passed); false after the last. */
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

    /** Payload bytes left in the current block. */
    public long remaining() {
        return blockEnd - position;
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
