package io.sluice.server.kafka;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Producing to and reading offsets of test topics on the shared broker. */
final class TestTopics implements AutoCloseable {
    final EmbeddedKafka kafka = SharedKafka.broker();
    private final KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            ProducerConfig.LINGER_MS_CONFIG, "5"), new ByteArraySerializer(), new ByteArraySerializer());

    String create(String prefix, int partitions) {
        String topic = SharedKafka.unique(prefix);
        kafka.createTopic(topic, partitions);
        return topic;
    }

    void send(String topic, int partition, byte[] value) {
        producer.send(new ProducerRecord<>(topic, partition, null, value));
    }

    /** Sends and waits for the broker: returns the record's offset. */
    long sendAndWait(String topic, int partition, byte[] value) {
        return sendAndWait(topic, partition, value, null);
    }

    /** Sends with a Content-Type header (none if null) and waits for the broker: returns the record's offset. */
    long sendAndWait(String topic, int partition, byte[] value, String contentType) {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, null, value);
        if (contentType != null) {
            record.headers().add("Content-Type", contentType.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        try {
            return producer.send(record).get(60, TimeUnit.SECONDS).offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    void flush() {
        producer.flush();
    }

    /** The end offset (next offset to be written) of every partition of {@code topic}. */
    Map<TopicPartition, Long> endOffsets(String topic, int partitions) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        get(kafka.admin().listOffsets(request).all()).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The group's committed offsets (absent partitions: none committed). */
    Map<TopicPartition, Long> committed(String group) {
        Map<TopicPartition, Long> out = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> offsets = get(kafka.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        offsets.forEach((tp, om) -> {
            if (om != null) {
                out.put(tp, om.offset());
            }
        });
        return out;
    }

    /** Waits until {@code group} has committed the end of every partition of {@code topic}: all is durable. */
    void awaitCommittedToEnd(String group, String topic, int partitions) {
        Map<TopicPartition, Long> end = endOffsets(topic, partitions);
        Await.until("group " + group + " to commit " + end, Await.LONG,
                () -> committed(group).entrySet().containsAll(end.entrySet()), () -> "committed " + committed(group));
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    static IngestConfig config(String group, Map<String, io.sluice.server.format.PayloadFormat> formats) {
        return IngestConfig.builder(SharedKafka.broker().bootstrapServers(), group, formats).commitIntervalMs(100).build();
    }


    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
