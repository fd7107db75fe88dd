package io.sluice.wal;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Tells whether a range of a mapped segment file at rest is all zeros, reading only what may hold
 * data: the ranges the file system knows to be zeros (holes, the unwritten extents of a segment
 * preallocated with {@code posix_fallocate}) are skipped ({@link FileExtents.DataRanges}); the rest
 * is compared through the mapping ({@link MappedSegment#isZero}).
 *
 * <p>Why: the range is typically the preallocated tail of the last segment, up to a whole segment.
 * Written with zeros, all of it is data and is read (as before: the first call in a fresh JVM costs
 * ~100 ms of CPU per 128 MiB, page faults included); allocated without writing, only the page the
 * records end in and the zero pages the page cache happens to hold after it are read.
 *
 * <p>Where the file has such ranges, the tail of the mapping is advised {@code MADV_RANDOM} before
 * it is read: a fault in a sequential mapping reads ahead, and the zero pages it would bring into
 * the page cache count as data for the next open's {@code SEEK_DATA}, a little more at each restart.
 * The pages there are in the page cache anyway (that is why they count as data), so no disk read
 * gets slower. A file that is data throughout keeps the sequential read-ahead.
 *
 * <p>Used by open's scan and inspection only (never on the append or read path). Owner thread.
 */
final class FileZeroCheck {
    private final Path file;
    private final MappedSegment segment;
    /** Bytes compared (tests: an unwritten tail costs next to nothing). */
    private long bytesRead;

    /** {@code segment} maps {@code file}, read-only. */
    FileZeroCheck(Path file, MappedSegment segment) {
        this.file = file;
        this.segment = segment;
    }

    /**
     * True if bytes [from, to) of the mapping are all zero.
     *
     * <p>The data ranges are all listed before any is read: reading one may start the kernel's
     * read-ahead past it, turning the unwritten range behind into "data" by the time it is asked
     * about (measured: the whole tail was read that way).
     */
    boolean isZero(long from, long to) {
        if (to <= from) {
            return true;
        }
        long[] ranges = dataRanges(from, to);
        boolean sparse = ranges[0] != from || ranges[1] != to;
        if (sparse) {
            PageAdvice.advise(segment.mapping, from, to, PageAdvice.RANDOM);
            // A fault in a huge-page range reads its whole 2 MiB folio (RANDOM does not stop that):
            // the zeros around each data range would turn into cached "data" for the next open.
            PageAdvice.advise(segment.mapping, from, to, PageAdvice.NOHUGEPAGE);
        }
        for (int i = 0; i < ranges.length && ranges[i] < ranges[i + 1]; i += 2) {
            bytesRead += ranges[i + 1] - ranges[i];
            if (!segment.isZero(ranges[i], ranges[i + 1])) {
                return false;
            }
        }
        return true;
    }

    /** [start, end) pairs of the ranges in [from, to) that may hold data, ended by an empty pair. */
    private long[] dataRanges(long from, long to) {
        long[] ranges = new long[8];
        int count = 0;
        try (FileExtents.DataRanges data = FileExtents.DataRanges.open(file)) {
            long at = from;
            while (at < to) {
                long start = data.nextData(at, to);
                if (start >= to) {
                    break;
                }
                long hole = data.nextHole(start, to);
                long end = hole > start ? hole : to; // a range that just turned into data: read to the end
                if (count + 4 > ranges.length) {
                    ranges = Arrays.copyOf(ranges, ranges.length * 2);
                }
                ranges[count++] = start;
                ranges[count++] = end;
                at = end;
            }
        }
        return ranges; // zeros after the last pair: an empty pair
    }

    long bytesRead() {
        return bytesRead;
    }
}
