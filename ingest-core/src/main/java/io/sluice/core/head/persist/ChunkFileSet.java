package io.sluice.core.head.persist;

import static io.sluice.core.head.persist.ChunkFileDescriptor.CRC_OFFSET;
import static io.sluice.core.head.persist.ChunkFileDescriptor.ENTRY_HEADER_BYTES;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Read access to a shard's chunk files while it loads a checkpoint: each file is mapped read-only
 * once, each chunk checked ({@link #check}) and read in place, so loading streams through the page
 * cache instead of holding a second copy of the data. Single-threaded; {@link #close()} unmaps.
 */
public final class ChunkFileSet implements AutoCloseable {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path directory;
    private final Arena arena = Arena.ofConfined();
    private final Map<Integer, MemorySegment> mapped = new HashMap<>();
    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[ChunkFileDescriptor.entryBytes(io.sluice.core.chunk.ChunkMemory.MAX_BLOCK_BYTES)];

    public ChunkFileSet(Path directory) {
        this.directory = directory;
    }

    /** Indexes of the chunk files in {@code directory}, ascending (empty if it does not exist). */
    public static TreeSet<Integer> list(Path directory) throws IOException {
        TreeSet<Integer> indexes = new TreeSet<>();
        if (Files.isDirectory(directory)) {
            try (Stream<Path> files = Files.list(directory)) {
                files.forEach(p -> {
                    int i = ChunkFileDescriptor.parseIndex(p.getFileName().toString());
                    if (i >= 0) {
                        indexes.add(i);
                    }
                });
            }
        }
        return indexes;
    }

    /**
     * Checks the chunk at {@code ref}: its file exists, the entry lies inside it, belongs to
     * {@code seriesId} and its CRC matches. Returns null when it is sound, else why not (with file and position).
     */
    public String check(long ref, int seriesId) throws IOException {
        int index = ChunkFileDescriptor.fileIndex(ref);
        long at = ChunkFileDescriptor.offset(ref);
        MemorySegment file = file(index);
        Path path = ChunkFileDescriptor.path(directory, index);
        if (file == null) {
            return "chunk file " + path + " is missing (chunk at " + at + ")";
        }
        if (file.byteSize() < ChunkFileDescriptor.FILE_HEADER_BYTES || file.get(INT, 0) != ChunkFileDescriptor.MAGIC) {
            return "chunk file " + path + " has no valid header (position 0)";
        }
        if (at < ChunkFileDescriptor.FILE_HEADER_BYTES || at + ENTRY_HEADER_BYTES > file.byteSize()) {
            return "chunk file " + path + " ends (" + file.byteSize() + " bytes) before the chunk at position " + at;
        }
        int length = file.get(INT, at + ChunkFileDescriptor.LENGTH_OFFSET);
        if (length < 1 || ENTRY_HEADER_BYTES + length > scratch.length || at + ENTRY_HEADER_BYTES + length > file.byteSize()) {
            return "chunk file " + path + " position " + at + ": chunk length " + length + " is impossible or past the end";
        }
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, at, scratch, 0, ENTRY_HEADER_BYTES + length);
        crc.reset();
        crc.update(scratch, 0, CRC_OFFSET);
        crc.update(scratch, ENTRY_HEADER_BYTES, length);
        int stored = file.get(INT, at + CRC_OFFSET);
        if ((int) crc.getValue() != stored) {
            return String.format("chunk file %s position %d: CRC32C mismatch (stored %08x, computed %08x)", path, at, stored,
                    (int) crc.getValue());
        }
        int owner = file.get(INT, at + ChunkFileDescriptor.SERIES_ID_OFFSET);
        if (owner != seriesId) {
            return "chunk file " + path + " position " + at + ": chunk of series " + owner + ", expected " + seriesId;
        }
        return null;
    }

    /** The mapping holding the chunk at {@code ref} (checked first with {@link #check}). */
    public MemorySegment segment(long ref) throws IOException {
        return file(ChunkFileDescriptor.fileIndex(ref));
    }

    /** Offset of the chunk's XOR bytes in {@link #segment}. */
    public static long bytesOffset(long ref) {
        return ChunkFileDescriptor.offset(ref) + ENTRY_HEADER_BYTES;
    }

    public int length(long ref) throws IOException {
        return segment(ref).get(INT, ChunkFileDescriptor.offset(ref) + ChunkFileDescriptor.LENGTH_OFFSET);
    }

    public long minTimeMs(long ref) throws IOException {
        return segment(ref).get(LONG, ChunkFileDescriptor.offset(ref) + ChunkFileDescriptor.MIN_TIME_OFFSET);
    }

    public long maxTimeMs(long ref) throws IOException {
        return segment(ref).get(LONG, ChunkFileDescriptor.offset(ref) + ChunkFileDescriptor.MAX_TIME_OFFSET);
    }

    public int numSamples(long ref) throws IOException {
        return segment(ref).get(SHORT, ChunkFileDescriptor.offset(ref) + ChunkFileDescriptor.NUM_SAMPLES_OFFSET) & 0xFFFF;
    }

    private MemorySegment file(int index) throws IOException {
        MemorySegment m = mapped.get(index);
        if (m == null && !mapped.containsKey(index)) {
            Path path = ChunkFileDescriptor.path(directory, index);
            if (Files.isRegularFile(path)) {
                try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                    m = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                }
            }
            mapped.put(index, m);
        }
        return m;
    }

    @Override
    public void close() {
        mapped.clear();
        arena.close();
    }
}
