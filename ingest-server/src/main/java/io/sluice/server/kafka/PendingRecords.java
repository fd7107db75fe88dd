package io.sluice.server.kafka;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Records a consumer has polled but not yet handled, in poll order per partition. Normally one poll's
 * worth, handled at once; under backpressure the rest of a poll waits here (its partitions paused)
 * until the shards take batches again. Owned by one consumer thread.
 */
final class PendingRecords {
    private final ArrayDeque<Run> runs = new ArrayDeque<>();

    /** A partition's records from one poll and how many of them have been handled. */
    static final class Run {
        final TopicPartition partition;
        final List<ConsumerRecord<byte[], byte[]>> records;
        int next;

        Run(TopicPartition partition, List<ConsumerRecord<byte[], byte[]>> records) {
            this.partition = partition;
            this.records = records;
        }

        boolean hasNext() {
            return next < records.size();
        }
    }

    void add(ConsumerRecords<byte[], byte[]> polled) {
        for (TopicPartition p : polled.partitions()) {
            runs.add(new Run(p, polled.records(p)));
        }
    }

    /** The oldest run with records left, or null. */
    Run peek() {
        Run run;
        while ((run = runs.peek()) != null && !run.hasNext()) {
            runs.poll();
        }
        return run;
    }

    boolean isEmpty() {
        return peek() == null;
    }

    /** Forgets the records of partitions this consumer no longer owns; the new owner reads them again. */
    void drop(Collection<TopicPartition> partitions) {
        runs.removeIf(run -> partitions.contains(run.partition));
    }

    void clear() {
        runs.clear();
    }
}
