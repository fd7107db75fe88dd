package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.config.KafkaSettings.GroupProtocol;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configuration errors are one readable line naming the field, found before any thread starts. */
class IngestConfigTest {
    private static final Map<String, PayloadFormat> TOPICS = Map.of("metrics", PayloadFormat.SLUICE);
    @TempDir
    Path dir;

    private static IngestConfig valid() {
        return IngestConfig.defaults("localhost:9092", "sluice", TOPICS);
    }

    @Test
    void rejectsEachBadFieldWithOneLine() {
        assertThatThrownBy(() -> IngestConfig.defaults("localhost", "g", TOPICS))
                .hasMessage("bootstrapServers: 'localhost' is not host:port");
        assertThatThrownBy(() -> IngestConfig.defaults("a:1,", "g", TOPICS)).hasMessage("bootstrapServers: '' is not host:port");
        assertThatThrownBy(() -> IngestConfig.defaults("a:1", " ", TOPICS)).hasMessage("groupId is missing");
        assertThatThrownBy(() -> IngestConfig.defaults("a:1", "g", Map.of())).hasMessage("formatByTopic: no topic to consume");
        assertThatThrownBy(() -> IngestConfig.defaults("a:1", "g", Map.of("bad topic", PayloadFormat.SLUICE)))
                .hasMessageStartingWith("formatByTopic: 'bad topic' is not a Kafka topic name");
        assertThatThrownBy(() -> valid().withConsumerThreads(0)).hasMessage("consumerThreads must be 1..256, was 0");
        assertThatThrownBy(() -> valid().withCommitIntervalMs(0)).hasMessage("commitIntervalMs must be 10..3600000, was 0");
        assertThatThrownBy(() -> valid().withGroupLagIntervalMs(500))
                .hasMessage("groupLagIntervalMs must be 0 (off) or 1000..3600000, was 500");
        assertThat(valid().withGroupLagIntervalMs(0).groupLagIntervalMs()).isZero();
        assertThatThrownBy(() -> valid().withDeadLetterTopic("metrics"))
                .hasMessage("deadLetterTopic 'metrics' is also consumed: rejected records would come back for ever");
        assertThatThrownBy(() -> valid().withDeadLetterSkippedLines(true)).hasMessage("deadLetterSkippedLines needs a deadLetterTopic");
        assertThat(valid().withDeadLetterTopic("dlq").withDeadLetterSkippedLines(true).deadLetterSkippedLines()).isTrue();
        assertThatThrownBy(() -> valid().withKafkaProperties(Map.of("enable.auto.commit", "true")))
                .hasMessage("kafkaProperties: 'enable.auto.commit' cannot be set: Sluice commits only offsets every shard made durable (exactly-once)");
        assertThatThrownBy(() -> valid().withKafkaProperties(Map.of("group.id", "x")))
                .hasMessage("kafkaProperties: 'group.id' cannot be set: set groupId instead");
        assertThat(valid().withKafkaProperties(Map.of("security.protocol", "SSL", "fetch.max.bytes", "1048576"))
                .kafkaProperties()).containsEntry("security.protocol", "SSL");
        assertThat(IngestConfig.defaults("[::1]:9092,broker-2:9093", "g", TOPICS).bootstrapServers()).contains("[::1]");
    }

    @Test
    void passesThroughClientPropertiesAndManagesTheExactlyOnceOnes() {
        IngestConfig config = valid().withGroupInstanceId("node-a")
                .withKafkaProperties(Map.of("fetch.max.bytes", "1048576", "auto.offset.reset", "latest", "linger.ms", "5"));
        Map<String, Object> consumer = KafkaClientProperties.consumer(config, 1);
        assertThat(consumer).containsEntry("fetch.max.bytes", "1048576").containsEntry("auto.offset.reset", "latest")
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "node-a-1")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")
                .containsEntry(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
                .doesNotContainKey("linger.ms"); // a producer property: not for the consumer
        assertThat(KafkaClientProperties.deadLetterProducer(config)).containsEntry("linger.ms", "5")
                .doesNotContainKey("fetch.max.bytes").containsEntry("acks", "all");
    }

    @Test
    void eachGroupProtocolGetsOnlyThePropertiesKafkaAcceptsWithIt() {
        Map<String, Object> classic = KafkaClientProperties.consumer(valid(), 0);
        assertThat(classic).containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        assertThat(KafkaClientProperties.consumer(valid().withSessionTimeoutMs(1_500), 0))
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        assertThat(KafkaClientProperties.consumer(valid().withSessionTimeoutMs(6_000)
                .withKafkaProperties(Map.of("heartbeat.interval.ms", "500")), 0))
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        IngestConfig consumerProtocol = valid().withGroupProtocol(GroupProtocol.CONSUMER).withGroupInstanceId("node-a")
                .withKafkaProperties(Map.of("group.remote.assignor", "uniform"));
        Map<String, Object> modern = KafkaClientProperties.consumer(consumerProtocol, 0);
        assertThat(modern).containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "node-a-0") // KIP-848 keeps static membership
                .doesNotContainKeys(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        // Kafka's own check of the combination (it refuses e.g. session.timeout.ms with the consumer protocol)
        for (Map<String, Object> p : java.util.List.of(classic, modern)) {
            new ConsumerConfig(ConsumerConfig.appendDeserializerToConfig(new java.util.HashMap<>(p),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer()));
        }

        assertThatThrownBy(() -> valid().withGroupProtocol(GroupProtocol.CONSUMER)
                .withKafkaProperties(Map.of("heartbeat.interval.ms", "500")))
                .hasMessageStartingWith("kafkaProperties: 'heartbeat.interval.ms' cannot be set with the consumer group "
                        + "protocol: with the consumer group protocol the broker sets it");
        assertThatThrownBy(() -> valid().withKafkaProperties(Map.of("group.remote.assignor", "uniform")))
                .hasMessageStartingWith("kafkaProperties: 'group.remote.assignor' cannot be set with the classic group protocol");
        assertThatThrownBy(() -> valid().withKafkaProperties(Map.of("session.timeout.ms", "6000")))
                .hasMessage("kafkaProperties: 'session.timeout.ms' cannot be set: set sessionTimeoutMs instead");
        assertThatThrownBy(() -> valid().withSessionTimeoutMs(500)).hasMessage("sessionTimeoutMs must be 1000..1800000, was 500");
    }

    @Test
    void aBadClientPropertyFailsAtConstructionInOneLine() throws Exception {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(1), new StreamRegistry(), new MemoryAccounting())) {
            IngestConfig config = valid().withKafkaProperties(Map.of("fetch.max.bytes", "lots"));
            assertThatThrownBy(() -> new KafkaIngest(config, head, new SimpleMeterRegistry()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Kafka client configuration: ")
                    .hasMessageContaining("fetch.max.bytes");
        }
    }

    @Test
    void anUnavailableDeadLetterTopicFailsTheStartInOneLine() throws Exception {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(1), new StreamRegistry(), new MemoryAccounting())) {
            head.start();
            IngestConfig config = IngestConfig.defaults("127.0.0.1:1", "g", TOPICS).withDeadLetterTopic("dead-letters");
            KafkaIngest ingest = new KafkaIngest(config, head, new SimpleMeterRegistry());
            assertThatThrownBy(ingest::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("dead-letter topic 'dead-letters' is not available: ")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            assertThat(ingest.hasAssignment()).isFalse();
            ingest.close();
        }
    }
}
