package io.sluice.server.kafka;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions one consumer thread owns and how far each has been handled (routed or rejected):
 * the watermarks it hands to every shard and waits for before committing. Indexed both by
 * partition and by dense stream id ({@link io.sluice.core.head.stream.StreamRegistry}). Owned by one
 * consumer thread.
 */
final class PartitionBook {
    private final Map<TopicPartition, AssignedPartition> byPartition = new HashMap<>();
    private int[] streams = new int[16];
    private int count;
    private long[] handled = new long[16]; // by stream id: the highest offset handled, -1 none

    void add(AssignedPartition p, long handledOffset) {
        byPartition.put(p.partition, p);
        if (count == streams.length) {
            streams = Arrays.copyOf(streams, count * 2);
        }
        streams[count++] = p.streamId;
        if (p.streamId >= handled.length) {
            handled = Arrays.copyOf(handled, Math.max(p.streamId + 1, handled.length * 2));
        }
        handled[p.streamId] = handledOffset;
    }

    AssignedPartition remove(TopicPartition partition) {
        AssignedPartition p = byPartition.remove(partition);
        if (p != null) {
            for (int i = 0; i < count; i++) {
                if (streams[i] == p.streamId) {
                    streams[i] = streams[--count];
                    break;
                }
            }
        }
        return p;
    }

    /** The owned partition, or null if this thread does not own it (any more). */
    AssignedPartition get(TopicPartition partition) {
        return byPartition.get(partition);
    }

    void handled(int streamId, long offset) {
        handled[streamId] = offset;
    }

    long handled(int streamId) {
        return handled[streamId];
    }

    /** The stream ids of the owned partitions are {@code streams()[0, count())}. */
    int[] streams() {
        return streams;
    }

    int count() {
        return count;
    }

    /** Handled offsets by stream id (read-only for the caller). */
    long[] handledByStream() {
        return handled;
    }

    /** The owned partitions, a live view: do not keep it across a rebalance callback. */
    Collection<AssignedPartition> values() {
        return byPartition.values();
    }

    List<AssignedPartition> all() {
        return new ArrayList<>(byPartition.values());
    }

    boolean isEmpty() {
        return byPartition.isEmpty();
    }
}
