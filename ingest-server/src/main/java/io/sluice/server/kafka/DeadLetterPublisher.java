package io.sluice.server.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Copies rejected records to the dead-letter topic: the original key, value, timestamp and headers,
 * plus headers saying why and where from ({@value #REASON}, {@value #MESSAGE}, {@value #SOURCE_TOPIC},
 * {@value #SOURCE_PARTITION}, {@value #SOURCE_OFFSET}, and {@value #SKIPPED_LINES} for a stored influx record
 * that lost lines; UTF-8 text).
 *
 * <p>Sends are asynchronous so a bad record never stalls its partition; {@link #flush()} runs before
 * every offset commit, so a record whose offset is committed is in the dead-letter topic (or counted
 * in {@code sluice_dead_letter_failures_total}; the caller logs the outcome it is told). Thread-safe (one producer shared by the
 * consumer threads).
 */
final class DeadLetterPublisher implements AutoCloseable {
    static final String REASON = "sluice.error.reason";
    static final String MESSAGE = "sluice.error.message";
    static final String SOURCE_TOPIC = "sluice.source.topic";
    static final String SOURCE_PARTITION = "sluice.source.partition";
    static final String SOURCE_OFFSET = "sluice.source.offset";
    static final String SKIPPED_LINES = "sluice.skipped.lines";

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final IngestMetrics metrics;
    private final AtomicLong unflushed = new AtomicLong();

    DeadLetterPublisher(String topic, Map<String, Object> producerProperties, IngestMetrics metrics) {
        this.topic = topic;
        this.producer = new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
        this.metrics = metrics;
    }

    /**
     * Copies {@code source} with the error headers; {@code done} is called once the copy is acknowledged
     * (with null) or has failed (with the error, already counted), on whichever thread learns it.
     * {@code skippedLines} &gt; 0 adds header {@value #SKIPPED_LINES} (a stored record that lost lines).
     */
    void publish(ConsumerRecord<byte[], byte[]> source, String reason, String message, long skippedLines,
            Consumer<Exception> done) {
        RecordHeaders headers = new RecordHeaders();
        for (Header h : source.headers()) {
            headers.add(h);
        }
        headers.add(REASON, utf8(reason));
        headers.add(MESSAGE, utf8(message));
        headers.add(SOURCE_TOPIC, utf8(source.topic()));
        headers.add(SOURCE_PARTITION, utf8(Integer.toString(source.partition())));
        headers.add(SOURCE_OFFSET, utf8(Long.toString(source.offset())));
        if (skippedLines > 0) {
            headers.add(SKIPPED_LINES, utf8(Long.toString(skippedLines)));
        }
        ProducerRecord<byte[], byte[]> copy = new ProducerRecord<>(topic, null,
                source.timestamp() >= 0 ? source.timestamp() : null, source.key(), source.value(), headers);
        unflushed.incrementAndGet();
        try {
            producer.send(copy, (metadata, error) -> {
                if (error == null) {
                    metrics.deadLettered.increment();
                } else {
                    metrics.deadLetterFailures.increment();
                }
                done.accept(error);
            });
        } catch (KafkaException e) { // e.g. no metadata for the topic within max.block.ms: counted, never thrown
            metrics.deadLetterFailures.increment();
            done.accept(e);
        }
    }

    /** The dead-letter topic's name. */
    String topic() {
        return topic;
    }

    /** Fails with one line unless the dead-letter topic exists and has partitions (checked at start). */
    void checkTopic() {
        try {
            if (producer.partitionsFor(topic).isEmpty()) {
                throw new IllegalStateException("dead-letter topic '" + topic + "' has no partitions");
            }
        } catch (KafkaException e) {
            throw new IllegalStateException("dead-letter topic '" + topic + "' is not available: " + e.getMessage());
        }
    }

    /** Waits until every record published so far is acknowledged (or failed); cheap when none is pending. */
    void flush() {
        if (unflushed.getAndSet(0) > 0) {
            producer.flush();
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
