package io.sluice.core.head.chunkfiles;

import java.nio.file.Path;

/**
 * The layout of a shard's chunk files ({@code shard-i/chunks/NNNNNNNN}); docs/format/chunks.md
 * describes it byte by byte. Every integer is little-endian.
 *
 * <pre>
 *  file   := header entry* zeros                      (fixed size, preallocated with zeros)
 *  header := magic:u32 "SCHK" | version:u8 | 0:u8[3] | fileIndex:u32 | 0:u32          (16 bytes)
 *
 *  entry (starts 8-byte aligned):
 *  0         4         8                   16                  24     26     28        32
 *  +---------+---------+-------------------+-------------------+------+------+---------+------------+---------+
 *  | series  | length  | minTimeMs i64     | maxTimeMs i64     | n    | 0    | crc32c  | XOR bytes  | 0 pad   |
 *  | id u32  | u32     |                   |                   | u16  | u16  | u32     | [length]   | to 8    |
 *  +---------+---------+-------------------+-------------------+------+------+---------+------------+---------+
 * </pre>
 *
 * The CRC32C covers the entry's first 28 bytes and its XOR bytes. A chunk is addressed by a
 * <em>ref</em>: {@code fileIndex << 32 | entryOffset}; 0 (the header of file 0) is never an entry
 * and means "not persisted". Entries follow each other up to the first hole; a series' chunks are in
 * time order, the entries of one write of the writer's buffer in the head's label order
 * ({@link ChunkFileWriter.ChunkOrder}); nothing else about their order is promised.
 */
public final class ChunkFileDescriptor {
    public static final int MAGIC = 0x4B48_4353; // "SCHK" in file order
    public static final byte VERSION = 1;
    public static final int FILE_HEADER_BYTES = 16;
    public static final int FILE_INDEX_OFFSET = 8;

    public static final int SERIES_ID_OFFSET = 0;
    public static final int LENGTH_OFFSET = 4;
    public static final int MIN_TIME_OFFSET = 8;
    public static final int MAX_TIME_OFFSET = 16;
    public static final int NUM_SAMPLES_OFFSET = 24;
    public static final int CRC_OFFSET = 28;
    public static final int ENTRY_HEADER_BYTES = 32;
    public static final int ALIGNMENT = 8;

    /** A chunk that is not in any chunk file. */
    public static final long NO_REF = 0L;
    /** Default size of a chunk file (as the WAL's segments). */
    public static final long DEFAULT_FILE_BYTES = 128L << 20;
    /** Smallest chunk file: room for a header and the largest chunk entry. */
    public static final long MIN_FILE_BYTES = 64 << 10;

    private ChunkFileDescriptor() {
    }

    public static long ref(int fileIndex, long offset) {
        return ((long) fileIndex << 32) | offset;
    }

    public static int fileIndex(long ref) {
        return (int) (ref >>> 32);
    }

    public static long offset(long ref) {
        return ref & 0xFFFF_FFFFL;
    }

    /** Bytes an entry of {@code length} XOR bytes takes, padding included. */
    public static int entryBytes(int length) {
        return (ENTRY_HEADER_BYTES + length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The file of chunk file {@code index} in {@code directory}: eight decimal digits, as WAL segments. */
    public static Path path(Path directory, int index) {
        return directory.resolve(String.format("%08d", index));
    }

    /** The index of a chunk file name, or -1 if the name is not one. */
    public static int parseIndex(String fileName) {
        if (fileName.length() != 8) {
            return -1;
        }
        for (int i = 0; i < 8; i++) {
            if (fileName.charAt(i) < '0' || fileName.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(fileName);
    }

    /** "file:offset", for messages. */
    public static String toString(long ref) {
        return String.format("%08d:%d", fileIndex(ref), offset(ref));
    }
}
