package io.sluice.wal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a WAL is laid out and synced.
 *
 * @param directory        where the segment files live; created if missing
 * @param segmentSizeBytes size of each preallocated segment file: a multiple of 4 KiB from 4 KiB to
 *                         1 GiB (default 128 MiB). A record holds at most this minus 64 bytes of
 *                         payload. Existing segments keep the size they were created with.
 * @param syncIntervalMs   group commit: {@link Wal#maybeSync(long)} forces at most this often
 *                         (default 100 ms); 0 syncs on every call that finds unsynced data
 * @param firstSegmentSizeBytes size of the first segment of an empty WAL (same rules, at most
 *                         {@code segmentSizeBytes}; default {@code segmentSizeBytes}). Each new segment
 *                         then doubles the size of the one before, up to {@code segmentSizeBytes}, and is
 *                         never smaller than the record that opens it: a small instance preallocates
 *                         little, a busy one soon writes full-size segments. Every segment is still
 *                         preallocated whole and declares its own size in its header.
 */
public record WalOptions(Path directory, int segmentSizeBytes, long syncIntervalMs, int firstSegmentSizeBytes) {
    public static final int DEFAULT_SEGMENT_SIZE_BYTES = 128 << 20;
    public static final long DEFAULT_SYNC_INTERVAL_MS = 100;
    public static final int MIN_SEGMENT_SIZE_BYTES = 4 << 10;
    public static final int MAX_SEGMENT_SIZE_BYTES = 1 << 30;

    public WalOptions {
        Objects.requireNonNull(directory, "directory");
        if (!isValidSegmentSize(segmentSizeBytes)) {
            throw new IllegalArgumentException("segmentSizeBytes must be a multiple of 4096 in ["
                    + MIN_SEGMENT_SIZE_BYTES + ", " + MAX_SEGMENT_SIZE_BYTES + "]: " + segmentSizeBytes);
        }
        if (!isValidSegmentSize(firstSegmentSizeBytes) || firstSegmentSizeBytes > segmentSizeBytes) {
            throw new IllegalArgumentException("firstSegmentSizeBytes must be a multiple of 4096 in ["
                    + MIN_SEGMENT_SIZE_BYTES + ", segmentSizeBytes]: " + firstSegmentSizeBytes);
        }
        if (syncIntervalMs < 0) {
            throw new IllegalArgumentException("syncIntervalMs must be >= 0: " + syncIntervalMs);
        }
    }

    /** Every segment {@code segmentSizeBytes}, the first one too. */
    public WalOptions(Path directory, int segmentSizeBytes, long syncIntervalMs) {
        this(directory, segmentSizeBytes, syncIntervalMs, segmentSizeBytes);
    }

    /** The defaults (128 MiB segments, sync every 100 ms) for {@code directory}. */
    public static WalOptions of(Path directory) {
        return new WalOptions(directory, DEFAULT_SEGMENT_SIZE_BYTES, DEFAULT_SYNC_INTERVAL_MS);
    }

    /**
     * The size of the segment after one of {@code previousSizeBytes}, when a frame of {@code frameBytes}
     * (0: none) must fit in it after the header and before the end marker: twice the previous, at
     * least the frame's need, at most {@code segmentSizeBytes}.
     */
    int nextSegmentSize(int previousSizeBytes, int frameBytes) {
        long need = SegmentDescriptor.HEADER_LENGTH + (long) frameBytes + RecordDescriptor.END_MARKER_LENGTH;
        long size = Math.max(2L * previousSizeBytes, (need + 4095) & -4096L);
        return (int) Math.max(MIN_SEGMENT_SIZE_BYTES, Math.min(size, segmentSizeBytes));
    }

    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /** The largest payload one record can carry with this segment size. */
    public int maxPayloadLength() {
        return RecordDescriptor.maxPayloadLength(segmentSizeBytes);
    }

    static boolean isValidSegmentSize(long sizeBytes) {
        return sizeBytes >= MIN_SEGMENT_SIZE_BYTES && sizeBytes <= MAX_SEGMENT_SIZE_BYTES && sizeBytes % 4096 == 0;
    }

    /** Builds {@link WalOptions}, starting from the defaults. */
    public static final class Builder {
        private final Path directory;
        private int segmentSizeBytes = DEFAULT_SEGMENT_SIZE_BYTES;
        private long syncIntervalMs = DEFAULT_SYNC_INTERVAL_MS;
        private int firstSegmentSizeBytes; // 0: segmentSizeBytes

        private Builder(Path directory) {
            this.directory = directory;
        }

        public Builder segmentSizeBytes(int sizeBytes) {
            this.segmentSizeBytes = sizeBytes;
            return this;
        }

        /** The first segment's size; segments double from it up to {@code segmentSizeBytes}. */
        public Builder firstSegmentSizeBytes(int sizeBytes) {
            this.firstSegmentSizeBytes = sizeBytes;
            return this;
        }

        public Builder syncIntervalMs(long intervalMs) {
            this.syncIntervalMs = intervalMs;
            return this;
        }

        public WalOptions build() {
            return new WalOptions(directory, segmentSizeBytes, syncIntervalMs,
                    firstSegmentSizeBytes == 0 ? segmentSizeBytes : firstSegmentSizeBytes);
        }
    }
}
