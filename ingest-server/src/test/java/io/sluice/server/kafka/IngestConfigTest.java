package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.config.KafkaSettings.GroupProtocol;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.lang.reflect.RecordComponent;
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

    /** A valid configuration, to change. */
    private static IngestConfig.Builder valid() {
        return IngestConfig.builder("localhost:9092", "sluice", TOPICS);
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
        assertThatThrownBy(() -> valid().consumerThreads(0).build()).hasMessage("consumerThreads must be 1..256, was 0");
        assertThatThrownBy(() -> valid().commitIntervalMs(0).build()).hasMessage("commitIntervalMs must be 10..3600000, was 0");
        assertThatThrownBy(() -> valid().groupLagIntervalMs(500).build())
                .hasMessage("groupLagIntervalMs must be 0 (off) or 1000..3600000, was 500");
        assertThat(valid().groupLagIntervalMs(0).build().groupLagIntervalMs()).isZero();
        assertThatThrownBy(() -> valid().deadLetterTopic("metrics").build())
                .hasMessage("deadLetterTopic 'metrics' is also consumed: rejected records would come back for ever");
        assertThatThrownBy(() -> valid().deadLetterSkippedLines(true).build()).hasMessage("deadLetterSkippedLines needs a deadLetterTopic");
        assertThat(valid().deadLetterTopic("dlq").deadLetterSkippedLines(true).build().deadLetterSkippedLines()).isTrue();
        assertThatThrownBy(() -> valid().kafkaProperties(Map.of("enable.auto.commit", "true")).build())
                .hasMessage("kafkaProperties: 'enable.auto.commit' cannot be set: Sluice commits only offsets every shard made durable (exactly-once)");
        assertThatThrownBy(() -> valid().kafkaProperties(Map.of("group.id", "x")).build())
                .hasMessage("kafkaProperties: 'group.id' cannot be set: set groupId instead");
        assertThat(valid().kafkaProperties(Map.of("security.protocol", "SSL", "fetch.max.bytes", "1048576")).build()
                .kafkaProperties()).containsEntry("security.protocol", "SSL");
        assertThat(IngestConfig.defaults("[::1]:9092,broker-2:9093", "g", TOPICS).bootstrapServers()).contains("[::1]");
    }

    @Test
    void toBuilderKeepsEveryField() throws ReflectiveOperationException {
        IngestConfig changed = IngestConfig.builder("broker:9093", "other", Map.of("logs", PayloadFormat.JSON))
                .groupInstanceId("node-a").consumerThreads(3).kafkaProperties(Map.of("linger.ms", "5"))
                .deadLetterTopic("dlq").limits(new DecoderLimits(1 << 20, 1 << 22), new LabelLimits(20, 100, 1000, false))
                .commitIntervalMs(250).pollTimeoutMs(50).deadLetterSkippedLines(true).groupLagIntervalMs(0)
                .groupProtocol(GroupProtocol.CONSUMER).sessionTimeoutMs(20_000).build();
        IngestConfig defaults = valid().build();
        for (RecordComponent field : IngestConfig.class.getRecordComponents()) {
            assertThat(field.getAccessor().invoke(changed)).as(field.getName())
                    .isNotEqualTo(field.getAccessor().invoke(defaults));
        }
        assertThat(changed.toBuilder().build()).isEqualTo(changed);
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
    }

    @Test
    void passesThroughClientPropertiesAndManagesTheExactlyOnceOnes() {
        IngestConfig config = valid().groupInstanceId("node-a")
                .kafkaProperties(Map.of("fetch.max.bytes", "1048576", "auto.offset.reset", "latest", "linger.ms", "5")).build();
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
        Map<String, Object> classic = KafkaClientProperties.consumer(valid().build(), 0);
        assertThat(classic).containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        assertThat(KafkaClientProperties.consumer(valid().sessionTimeoutMs(1_500).build(), 0))
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        assertThat(KafkaClientProperties.consumer(valid().sessionTimeoutMs(6_000)
                .kafkaProperties(Map.of("heartbeat.interval.ms", "500")).build(), 0))
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        IngestConfig consumerProtocol = valid().groupProtocol(GroupProtocol.CONSUMER).groupInstanceId("node-a")
                .kafkaProperties(Map.of("group.remote.assignor", "uniform")).build();
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

        assertThatThrownBy(() -> valid().groupProtocol(GroupProtocol.CONSUMER)
                .kafkaProperties(Map.of("heartbeat.interval.ms", "500")).build())
                .hasMessageStartingWith("kafkaProperties: 'heartbeat.interval.ms' cannot be set with the consumer group "
                        + "protocol: with the consumer group protocol the broker sets it");
        assertThatThrownBy(() -> valid().kafkaProperties(Map.of("group.remote.assignor", "uniform")).build())
                .hasMessageStartingWith("kafkaProperties: 'group.remote.assignor' cannot be set with the classic group protocol");
        assertThatThrownBy(() -> valid().kafkaProperties(Map.of("session.timeout.ms", "6000")).build())
                .hasMessage("kafkaProperties: 'session.timeout.ms' cannot be set: set sessionTimeoutMs instead");
        assertThatThrownBy(() -> valid().sessionTimeoutMs(500).build()).hasMessage("sessionTimeoutMs must be 1000..1800000, was 500");
    }

    @Test
    void aBadClientPropertyFailsAtConstructionInOneLine() throws Exception {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(1), new StreamRegistry(), new MemoryAccounting())) {
            IngestConfig config = valid().kafkaProperties(Map.of("fetch.max.bytes", "lots")).build();
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
            IngestConfig config = IngestConfig.builder("127.0.0.1:1", "g", TOPICS).deadLetterTopic("dead-letters").build();
            KafkaIngest ingest = new KafkaIngest(config, head, new SimpleMeterRegistry());
            assertThatThrownBy(ingest::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("dead-letter topic 'dead-letters' is not available: ")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            assertThat(ingest.hasAssignment()).isFalse();
            ingest.close();
        }
    }
}
