package io.sluice.core.head.records;

/**
 * WAL record types written by a shard (the WAL's own type byte; 0 is reserved by the WAL).
 * Documented with their payloads in docs/format/head-wal.md.
 */
public final class HeadRecordType {
    /** New series: id and canonical label bytes. Always before the first SAMPLES entry naming the id. */
    public static final int SERIES = 1;
    /** Accepted samples, delta-encoded ({@link SamplesRecord}). */
    public static final int SAMPLES = 2;
    /** Per-partition watermarks: the highest Kafka offset whose samples this shard has applied. */
    public static final int OFFSETS = 3;

    private HeadRecordType() {
    }

    public static String name(int type) {
        return switch (type) {
            case SERIES -> "SERIES";
            case SAMPLES -> "SAMPLES";
            case OFFSETS -> "OFFSETS";
            default -> "TYPE_" + type;
        };
    }
}
