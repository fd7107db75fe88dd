package io.sluice.core.head.chunkfiles;

import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.CRC_OFFSET;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.ENTRY_HEADER_BYTES;
import static io.sluice.core.head.chunkfiles.ChunkFileDescriptor.FILE_HEADER_BYTES;

import io.sluice.core.chunk.ChunkMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The CRC pass over one chunk file: reads it once, front to back, with positional reads into one
 * {@value #READ_BYTES}-byte buffer, {@code O_DIRECT} where the file system allows it
 * ({@link DirectReads}), and verifies every entry's CRC. The scan stops at the first hole (zeros:
 * the end of what was written) or at an entry whose length is impossible (nothing after it can be
 * found); an entry with a bad CRC is noted and skipped.
 *
 * <p>Threads: one at a time (it owns the buffer and the CRC state).
 */
final class ChunkFileScanner {
    /** Bytes per read: large reads keep several requests in flight on the device (direct reads are synchronous). */
    static final int READ_BYTES = 4 << 20;

    private final boolean directReads;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer; // allocated at the first scan

    /** {@code directReads} false reads through the page cache (tests compare both). */
    ChunkFileScanner(boolean directReads) {
        this.directReads = directReads;
    }

    private ByteBuffer buffer() {
        if (buffer == null) {
            buffer = DirectReads.buffer(READ_BYTES);
        }
        return buffer;
    }

    /** Scans the chunk file at {@code path} (a missing file or one without a header is a result, not an exception). */
    ChunkFileScan scan(Path path) throws IOException {
        ChunkFileScan scan = new ChunkFileScan(path);
        if (!Files.isRegularFile(path)) {
            scan.headerProblem = "chunk file " + path + " is missing";
            return scan;
        }
        try (DirectReads reads = DirectReads.open(path, directReads)) {
            long size = reads.size();
            scan.size = size;
            ByteBuffer b = buffer();
            long bufferStart = 0;
            reads.fill(b, bufferStart);
            int readable = b.limit(); // bytes read into b; the CRC below moves the limit
            if (readable < FILE_HEADER_BYTES || b.getInt(0) != ChunkFileDescriptor.MAGIC) {
                scan.headerProblem = "chunk file " + path + " has no valid header (position 0)";
                return scan;
            }
            long at = FILE_HEADER_BYTES;
            while (true) {
                int rel = (int) (at - bufferStart);
                if (rel + ENTRY_HEADER_BYTES + ChunkMemory.MAX_BLOCK_BYTES > readable && bufferStart + readable < size) {
                    // refill from the aligned block holding this entry: an entry is never split across reads
                    bufferStart = at & -DirectReads.ALIGNMENT_BYTES;
                    reads.fill(b, bufferStart);
                    readable = b.limit();
                    rel = (int) (at - bufferStart);
                }
                if (rel + ENTRY_HEADER_BYTES > readable) {
                    break; // the file ends
                }
                int length = b.getInt(rel + ChunkFileDescriptor.LENGTH_OFFSET);
                if (length == 0 && b.getInt(rel + CRC_OFFSET) == 0) {
                    break; // a hole: nothing was written from here on
                }
                if (length < 1 || length > ChunkMemory.MAX_BLOCK_BYTES || rel + ENTRY_HEADER_BYTES + length > readable) {
                    scan.damaged(at, "chunk file " + path + " position " + at + ": chunk length " + length
                            + " is impossible or past the end");
                    break;
                }
                verifyEntry(scan, b, rel, at, length);
                b.limit(readable).position(0);
                at += ChunkFileDescriptor.entryBytes(length);
            }
            scan.end = at;
            scan.readDirect = reads.isDirect();
        }
        return scan;
    }

    /** Checks the CRC of the entry at {@code b[rel]} (file position {@code at}); notes it as intact or damaged. Moves b's limit. */
    private void verifyEntry(ChunkFileScan scan, ByteBuffer b, int rel, long at, int length) {
        crc.reset();
        crc.update(b.limit(rel + CRC_OFFSET).position(rel));
        b.limit(b.capacity());
        crc.update(b.limit(rel + ENTRY_HEADER_BYTES + length).position(rel + ENTRY_HEADER_BYTES));
        int stored = b.getInt(rel + CRC_OFFSET);
        if ((int) crc.getValue() != stored) {
            scan.damagedEntries.put(at, String.format("chunk file %s position %d: CRC32C mismatch (stored %08x, computed %08x)",
                    scan.path, at, stored, (int) crc.getValue()));
        } else {
            scan.add(at, b.getInt(rel + ChunkFileDescriptor.SERIES_ID_OFFSET),
                    b.getShort(rel + ChunkFileDescriptor.NUM_SAMPLES_OFFSET));
        }
    }
}
