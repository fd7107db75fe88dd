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
 */
public record WalOptions(Path directory, int segmentSizeBytes, long syncIntervalMs) {
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
        if (syncIntervalMs < 0) {
            throw new IllegalArgumentException("syncIntervalMs must be >= 0: " + syncIntervalMs);
        }
    }

    /** The defaults (128 MiB segments, sync every 100 ms) for {@code directory}. */
    public static WalOptions of(Path directory) {
        return new WalOptions(directory, DEFAULT_SEGMENT_SIZE_BYTES, DEFAULT_SYNC_INTERVAL_MS);
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

        private Builder(Path directory) {
            this.directory = directory;
        }

        public Builder segmentSizeBytes(int sizeBytes) {
            this.segmentSizeBytes = sizeBytes;
            return this;
        }

        public Builder syncIntervalMs(long intervalMs) {
            this.syncIntervalMs = intervalMs;
            return this;
        }

        public WalOptions build() {
            return new WalOptions(directory, segmentSizeBytes, syncIntervalMs);
        }
    }
}
