package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded KRaft broker serves real clients: a topic is created, produced to and consumed by a group. */
class EmbeddedKafkaTest {
    @Test
    void producesAndConsumesThroughAGroup() throws Exception {
        EmbeddedKafka kafka = SharedKafka.broker();
        String topic = SharedKafka.unique("smoke");
        kafka.createTopic(topic, 3);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedKafka.unique("smoke-group"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen.size() < 30 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
            }
        }
        assertThat(seen).hasSize(30).contains("v0", "v29");
    }

    /** The broker-outage end-to-end test stops a broker and starts it again on the same address with its data. */
    @Test
    void restartsOnTheSamePortsWithItsData(@TempDir Path dir) throws Exception {
        String topic = SharedKafka.unique("restart");
        EmbeddedKafka first = EmbeddedKafka.start(dir);
        int brokerPort = first.brokerPort();
        int controllerPort = first.controllerPort();
        try (first) {
            first.createTopic(topic, 1);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "before")).get();
            }
        }
        try (EmbeddedKafka second = EmbeddedKafka.start(dir, brokerPort, controllerPort)) {
            assertThat(second.bootstrapServers()).isEqualTo(first.bootstrapServers());
            TopicPartition tp = new TopicPartition(topic, 0);
            long end = second.admin().listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(60, TimeUnit.SECONDS).get(tp).offset();
            assertThat(end).as("records kept across the restart").isEqualTo(1);
        }
    }
}
