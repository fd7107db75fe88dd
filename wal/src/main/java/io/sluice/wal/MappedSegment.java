package io.sluice.wal;

import static io.sluice.wal.RecordDescriptor.CRC_OFFSET;
import static io.sluice.wal.RecordDescriptor.END_MARKER_LENGTH;
import static io.sluice.wal.RecordDescriptor.END_OF_SEGMENT_TYPE;
import static io.sluice.wal.RecordDescriptor.FRAME_LENGTH;
import static io.sluice.wal.RecordDescriptor.HEADER_LENGTH;
import static io.sluice.wal.RecordDescriptor.INT_LE;
import static io.sluice.wal.RecordDescriptor.TYPE_OFFSET;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One segment file mapped into memory, with the frame checks every user of a mapping needs.
 *
 * <p>Each instance has its own shared arena (the mapping is unmapped by {@link #close()}) and its
 * own checksum state, so it belongs to one thread at a time: the writer, one reader, or a scan.
 * Several instances may map the same file; they see the same page-cache pages, and the frame
 * length's release/acquire order carries over between them.
 *
 * <p>Only the bytes the file really has are mapped (touching a mapping past the end of its file
 * raises SIGBUS), so a truncated file maps short and {@link #check(int)} says where it ends.
 */
final class MappedSegment implements AutoCloseable {
    /**
     * Frames up to this size are checksummed from a copy in {@link #smallFrame}: CRC32C over a
     * ByteBuffer view of a shared-arena mapping acquires and releases the arena (two atomic
     * operations) per call, which costs more than copying a small frame (measured: 72-byte frames
     * 29 ns copied vs 44 ns through the buffer; from about 256 bytes on the buffer wins).
     */
    private static final int SMALL_FRAME_BYTES = 128;
    /** Read-only mappings drop the pages behind their reader in steps of this many bytes ({@link #releaseBehind}). */
    static final int RELEASE_STEP_BYTES = 4 << 20;
    /**
     * A reader keeps the disk this far ahead of it ({@link #readAhead}): at a replay's ~100 MB/s per
     * shard, a few tenths of a second of reading, more than the kernel's own fault read-ahead.
     */
    static final int READ_AHEAD_BYTES = 32 << 20;
    /**
     * Bytes per {@code MADV_WILLNEED} call: the kernel reads at most max(read-ahead window, optimal
     * I/O size) per call and silently drops the rest (128 KiB-1.25 MiB by default), so the range goes
     * in pieces no device cuts short.
     */
    private static final int WILLNEED_CALL_BYTES = 512 << 10;
    /** What {@link #check} returns for a frame whose CRC matched: a record, an end marker, a marker of the wrong length. */
    private static final FrameStatus[] CHECKED_STATUS = {FrameStatus.RECORD, FrameStatus.END_OF_SEGMENT, FrameStatus.BAD_LENGTH};
    /** Compared against to find non-zero bytes; 64 KiB of zeros, never written. */
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[64 << 10]).asReadOnly();

    final int index;
    /** The mapped bytes: min(file size, declared segment size). */
    final MemorySegment mapping;
    /** The file size when it was mapped. */
    final long fileSize;
    private final Arena arena;
    private final WalMetrics metrics;
    private final ByteBuffer crcView;
    private final CRC32C crc = new CRC32C();
    private final byte[] smallFrame = new byte[SMALL_FRAME_BYTES];
    /** The segment size from the header, once known; checks use it to bound frame lengths. */
    private int declaredSize;
    private final boolean readOnly;
    /**
     * Pages are dropped behind a reader only in multiples of this: 2 MiB where the mapping was advised
     * {@link PageAdvice#HUGEPAGE} (a release inside a PMD-mapped folio would split its mapping back
     * into 512 entries first), else one page. Set once by {@link #mapReadOnly}, before the owner uses it.
     */
    private long releaseAlignBytes = PageAdvice.PAGE_BYTES;
    // Owner thread: how far the pages of a read-only mapping were dropped from the resident set.
    private long releasedTo;
    private long releasedBytes;
    private long readAheadTo; // bytes below this were advised WILLNEED (or were cached when looked at)
    private long willNeedCalls; // madvise(WILLNEED) calls made (tests: none when the range is cached)
    /**
     * {@link #readAhead} does nothing below this offset: one comparison on the reader's path (the
     * conditions it stands for, such as "the whole mapping was advised", turn true long after the
     * reader was compiled, and a branch on each would trap then). Long.MAX_VALUE: never again.
     */
    private long nextReadAheadAt;
    /** mincore's result vector for {@link #readAhead}; owner thread, lazily from the mapping's arena. */
    private MemorySegment residencyVector;
    /** The frame length and type of the last frame whose checksum {@link #check} found correct; owner thread. */
    private int checkedFrameLength;
    private int checkedType;

    private MappedSegment(int index, Arena arena, MemorySegment mapping, long fileSize, boolean readOnly, WalMetrics metrics) {
        this.index = index;
        this.readOnly = readOnly;
        this.arena = arena;
        this.mapping = mapping;
        this.fileSize = fileSize;
        this.metrics = metrics;
        this.crcView = mapping.asByteBuffer();
        this.declaredSize = (int) Math.min(mapping.byteSize(), Integer.MAX_VALUE);
        this.nextReadAheadAt = readOnly && mapping.byteSize() > 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        if (metrics != null) {
            metrics.onMapped(mapping.byteSize());
        }
    }

    /**
     * Maps at most {@code maxBytes} of an existing file read-only.
     *
     * @throws java.nio.file.NoSuchFileException if the file does not exist
     */
    static MappedSegment mapReadOnly(Path file, int index, long maxBytes, WalMetrics metrics) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long fileSize = channel.size();
            MappedSegment segment = map(channel, FileChannel.MapMode.READ_ONLY, index, fileSize, Math.min(fileSize, maxBytes), metrics);
            PageAdvice.advise(segment.mapping, 0, segment.mapping.byteSize(), PageAdvice.SEQUENTIAL); // readers go forward
            // Huge pages: what the faults of this mapping read into the page cache arrives in 2 MiB folios,
            // which every later mapping of the segment (the replay after the scan, the next restart) maps
            // with one entry per 2 MiB instead of one per 4 KiB; measured 0.5 against 3.5-20 ms of kernel
            // time per 128 MiB pass (docs/design/restart-io.md). Read-only mappings only: a
            // writer's dirty 2 MiB folios would be written back whole at each group commit.
            if (PageAdvice.advise(segment.mapping, 0, segment.mapping.byteSize(), PageAdvice.HUGEPAGE)) {
                segment.releaseAlignBytes = PageAdvice.HUGE_PAGE_BYTES;
            }
            return segment;
        }
    }

    /** Maps the first {@code sizeBytes} of a file, which must have at least that many, for writing. */
    static MappedSegment mapReadWrite(Path file, int index, int sizeBytes, WalMetrics metrics) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = channel.size();
            if (fileSize < sizeBytes) {
                throw new IllegalStateException("segment " + file + " is " + fileSize + " bytes, expected " + sizeBytes);
            }
            MappedSegment segment = map(channel, FileChannel.MapMode.READ_WRITE, index, fileSize, sizeBytes, metrics);
            segment.declaredSize = sizeBytes;
            return segment;
        }
    }

    private static MappedSegment map(FileChannel channel, FileChannel.MapMode mode, int index, long fileSize,
                                     long bytes, WalMetrics metrics) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            return new MappedSegment(index, arena, channel.map(mode, 0, bytes, arena), fileSize,
                    mode == FileChannel.MapMode.READ_ONLY, metrics);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** Call after the header checked out: frames are bounded by the declared size from then on. */
    void useDeclaredSize(int sizeBytes) {
        this.declaredSize = sizeBytes;
    }

    int declaredSize() {
        return declaredSize;
    }

    /** How many bytes of the segment are really there (less than declared if the file was truncated). */
    long availableBytes() {
        return Math.min(mapping.byteSize(), declaredSize);
    }

    boolean isTruncated() {
        return mapping.byteSize() < declaredSize;
    }

    /**
     * Validates the frame starting at {@code offset} (8-byte aligned, past the segment header). A
     * frame length of 0 is {@link FrameStatus#EMPTY} whatever follows: a live writer may already have
     * written the type and CRC of a record it has not published; a scan at rest looks closer.
     */
    FrameStatus check(int offset) {
        long available = availableBytes();
        if (offset + HEADER_LENGTH > available) {
            return isZero(offset, available) ? FrameStatus.EMPTY : FrameStatus.PAST_END;
        }
        int frameLength = (int) FRAME_LENGTH.getAcquire(mapping, (long) offset);
        if (frameLength == 0) {
            return FrameStatus.EMPTY;
        }
        int type = type(offset);
        if (!fitsInSegment(offset, frameLength, type)) {
            return FrameStatus.BAD_LENGTH;
        }
        if (offset + (long) frameLength > available) {
            return FrameStatus.PAST_END;
        }
        if (mapping.get(INT_LE, offset + CRC_OFFSET) != frameCrc(offset, frameLength)) {
            return FrameStatus.BAD_CRC;
        }
        checkedFrameLength = frameLength;
        checkedType = type;
        // Record, end marker or a marker of the wrong length, without a branch: a scan meets the first
        // end marker after thousands of records, when C2 has compiled this with the marker's path as
        // an uncommon trap; taking it deoptimized the scan and compiled it again (twice per restart).
        int isMarker = ((type ^ END_OF_SEGMENT_TYPE) - 1) >>> 31; // type is 0..255: 1 iff the marker's
        int lengthBits = frameLength ^ END_MARKER_LENGTH;
        int lengthDiffers = (lengthBits | -lengthBits) >>> 31; // 1 iff not 16 (a ?: was compiled as a trapping branch)
        return CHECKED_STATUS[isMarker * (1 + lengthDiffers)];
    }

    /**
     * A caller record must leave room for the end marker after it; the marker needs only itself.
     * (The type is not trusted yet: a torn write may have zeroed it, and the CRC check comes next.)
     */
    private boolean fitsInSegment(int offset, int frameLength, int type) {
        if (frameLength < HEADER_LENGTH) {
            return false;
        }
        long end = offset + ((frameLength + (long) RecordDescriptor.ALIGNMENT - 1) & -RecordDescriptor.ALIGNMENT);
        // Without a branch on the type: the first end marker comes long after this was compiled (a trap).
        int isMarker = ((type ^ END_OF_SEGMENT_TYPE) - 1) >>> 31; // type is 0..255: 1 iff type == the marker's
        return end + END_MARKER_LENGTH * (1 - isMarker) <= declaredSize;
    }

    /** The frame length of the record the last {@link #check} returned {@link FrameStatus#RECORD} for. */
    int checkedFrameLength() {
        return checkedFrameLength;
    }

    /** The type of the record the last {@link #check} returned {@link FrameStatus#RECORD} for. */
    int checkedType() {
        return checkedType;
    }

    int frameLength(int offset) {
        return mapping.get(INT_LE, offset);
    }

    int type(int offset) {
        return Byte.toUnsignedInt(mapping.get(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET));
    }

    /** The CRC32C of a frame as {@link RecordDescriptor} defines it. */
    int frameCrc(int offset, int frameLength) {
        crc.reset();
        crc.update(frameLength);
        crc.update(frameLength >>> 8);
        crc.update(frameLength >>> 16);
        crc.update(frameLength >>> 24);
        if (frameLength <= SMALL_FRAME_BYTES) {
            int bodyBytes = frameLength - TYPE_OFFSET;
            MemorySegment.copy(mapping, ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET, smallFrame, 0, bodyBytes);
            crc.update(smallFrame, 0, bodyBytes);
        } else {
            crcView.limit(offset + frameLength);
            crcView.position(offset + TYPE_OFFSET);
            crc.update(crcView);
        }
        return (int) crc.getValue();
    }

    /** Writes the type, checksum and, last and with release order, the frame length. */
    void publish(int offset, int type, int frameLength) {
        mapping.set(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET, (byte) type);
        mapping.set(INT_LE, offset + CRC_OFFSET, frameCrc(offset, frameLength));
        FRAME_LENGTH.setRelease(mapping, (long) offset, frameLength);
    }

    /**
     * For a read-only mapping read front to back (a reader, a scan): drops the whole pages below
     * {@code offset} from the process' resident set once {@link #RELEASE_STEP_BYTES} have gathered
     * ({@code madvise(MADV_DONTNEED)}; the bytes stay in the page cache and fault back in if read
     * again). Why: a scan or replay touches every page of a segment (up to 1 GiB), and without this
     * they all stay resident until the mapping is closed. Offsets below the last release are ignored.
     * A writable mapping is left alone. Owner thread.
     */
    void releaseBehind(long offset) {
        if (!readOnly || offset - releasedTo < RELEASE_STEP_BYTES) {
            return;
        }
        long to = offset & -releaseAlignBytes;
        if (PageAdvice.advise(mapping, releasedTo, to, PageAdvice.DONTNEED)) {
            releasedBytes += to - releasedTo;
        }
        releasedTo = to;
    }

    /**
     * For a read-only mapping a reader goes through front to back: once per
     * {@link #RELEASE_STEP_BYTES} step of {@code offset}, asks the kernel to read the next
     * {@link #READ_AHEAD_BYTES} into the page cache ({@code madvise(MADV_WILLNEED)}, asynchronous,
     * maps nothing, so the resident set is unchanged). Why: on a cold cache a replay thread otherwise
     * waits for the disk whenever it faults past the kernel's fault read-ahead; with the range
     * already requested the fault finds the page (or its read under way). What the reader reads is
     * unchanged. Owner thread.
     */
    void readAhead(long offset, long limit) {
        if (offset < nextReadAheadAt) {
            return;
        }
        long end = Math.min(mapping.byteSize(), limit);
        long from = Math.max(offset, readAheadTo) & -PageAdvice.PAGE_BYTES;
        long to = Math.min(end, offset + READ_AHEAD_BYTES);
        // Cached already (the usual case right after the WAL was written): one mincore instead of a
        // WILLNEED call per 512 KiB, which costs microseconds even when every page is there.
        long pages = (to - from + PageAdvice.PAGE_BYTES - 1) / PageAdvice.PAGE_BYTES;
        if (to > from && PageCacheResidency.cachedPages(mapping, from, to - from, residencyVector(pages)) != pages) {
            for (long at = from; at < to; at += WILLNEED_CALL_BYTES) {
                PageAdvice.advise(mapping, at, Math.min(to, at + WILLNEED_CALL_BYTES), PageAdvice.WILLNEED);
                willNeedCalls++;
            }
        }
        readAheadTo = Math.max(readAheadTo, to);
        nextReadAheadAt = to >= end ? Long.MAX_VALUE : to + RELEASE_STEP_BYTES - READ_AHEAD_BYTES;
    }

    /** The result vector of {@link #readAhead}'s mincore calls, allocated once per mapping (its arena). */
    private MemorySegment residencyVector(long pages) {
        long bytes = PageCacheResidency.vectorBytes(pages);
        if (residencyVector == null || residencyVector.byteSize() < bytes) {
            residencyVector = arena.allocate(Math.max(bytes, PageCacheResidency.vectorBytes(READ_AHEAD_BYTES / PageAdvice.PAGE_BYTES + 1)), Long.BYTES);
        }
        return residencyVector;
    }

    /** {@code madvise(WILLNEED)} calls {@link #readAhead} made on this mapping. */
    long willNeedCalls() {
        return willNeedCalls;
    }

    /** Bytes {@link #releaseBehind} dropped from the resident set. */
    long releasedBytes() {
        return releasedBytes;
    }

    /** True if bytes [from, to) of the mapping are all zero. Releases what it read behind it ({@link #releaseBehind}). */
    boolean isZero(long from, long to) {
        for (long at = from; at < to; at += ZEROS.byteSize()) {
            long chunk = Math.min(ZEROS.byteSize(), to - at);
            if (MemorySegment.mismatch(mapping, at, at + chunk, ZEROS, 0, chunk) >= 0) {
                return false;
            }
            releaseBehind(at + chunk);
        }
        return true;
    }

    /** One past the last non-zero byte in [from, available), or {@code from} if they are all zero. */
    long endOfData(long from) {
        long to = availableBytes();
        while (to > from) {
            long chunkStart = Math.max(from, to - ZEROS.byteSize());
            if (!isZero(chunkStart, to)) {
                for (long at = to - 1; at >= chunkStart; at--) {
                    if (mapping.get(ValueLayout.JAVA_BYTE, at) != 0) {
                        return at + 1;
                    }
                }
            }
            to = chunkStart;
        }
        return from;
    }

    /** Zeroes [from, to) without allocating (no slice objects). */
    void zero(long from, long to) {
        for (long at = from; at < to; at += ZEROS.byteSize()) {
            MemorySegment.copy(ZEROS, 0, mapping, at, Math.min(ZEROS.byteSize(), to - at));
        }
    }

    /** Forces bytes [from, to) of the mapping to the file (msync of the pages they touch). */
    void force(long from, long to) throws IOException {
        if (to <= from) {
            return;
        }
        try {
            mapping.asSlice(from, to - from).force();
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
            if (metrics != null) {
                metrics.onUnmapped(mapping.byteSize());
            }
        }
    }
}
