package io.sluice.server.kafka;

import io.micrometer.core.instrument.Gauge;
import io.sluice.server.format.PayloadFormat;
import org.apache.kafka.common.TopicPartition;

/**
 * What a consumer thread keeps about one partition assigned to it, from assignment to revocation.
 * Owned by that consumer thread, except {@link #lag()}, which the metrics scrape reads.
 */
final class AssignedPartition {
    final TopicPartition partition;
    final int streamId;
    /** The topic's configured format; a record's own may differ ({@link RecordFormats#resolve}). */
    final PayloadFormat format;
    /** The offset Kafka holds for the group (the next to read); -1 unknown. Commits only move it forward. */
    long committedOffset;
    /** The lag gauge, registered at assignment and removed at revocation. */
    Gauge lagGauge;
    private volatile double lag = Double.NaN; // written by the consumer thread, read by scrapes

    AssignedPartition(TopicPartition partition, int streamId, PayloadFormat format, long committedOffset) {
        this.partition = partition;
        this.streamId = streamId;
        this.format = format;
        this.committedOffset = committedOffset;
    }

    /** Records between the consumer's position and the partition's end; NaN until the first fetch. Any thread. */
    double lag() {
        return lag;
    }

    void lag(long records) {
        lag = records;
    }
}
