package io.sluice.core.head.stream;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Dense ids for the sources samples come from — in the server, Kafka topic-partitions — so the
 * batch and the shards carry an int instead of a topic name. Shared by all consumers and shards
 * of a process; ids are process-local (the WAL spells out topic names, see OffsetsRecord).
 *
 * <p>Registration is rare (partition assignment, replay) and synchronized; lookups by id are
 * lock-free reads of an array published after it is filled.
 */
public final class StreamRegistry {
    private final Map<String, Map<Integer, Integer>> idByTopicPartition = new HashMap<>(); // guarded by this
    private volatile Stream[] streams = new Stream[0];

    /** A registered stream: topic, partition and the topic's UTF-8 bytes (for OFFSETS records). */
    public record Stream(int id, String topic, int partition, byte[] topicUtf8) {
    }

    /** The id of (topic, partition), registering it on first use. */
    public synchronized int idOf(String topic, int partition) {
        Map<Integer, Integer> byPartition = idByTopicPartition.computeIfAbsent(topic, t -> new HashMap<>());
        Integer existing = byPartition.get(partition);
        if (existing != null) {
            return existing;
        }
        int id = streams.length;
        Stream[] grown = Arrays.copyOf(streams, id + 1);
        grown[id] = new Stream(id, topic, partition, topic.getBytes(StandardCharsets.UTF_8));
        streams = grown;
        byPartition.put(partition, id);
        return id;
    }

    /** The stream with {@code id}; ids come from {@link #idOf}. */
    public Stream stream(int id) {
        return streams[id];
    }

    /** Number of registered streams; ids are 0..size-1. */
    public int size() {
        return streams.length;
    }
}
