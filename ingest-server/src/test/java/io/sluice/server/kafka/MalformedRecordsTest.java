package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad records mixed into good ones, two topics of two formats: each bad record is counted by
 * reason and copied to the dead-letter topic with its error and source coordinates in headers;
 * every good record is stored; the partitions keep moving (committed to their ends).
 */
class MalformedRecordsTest {
    private static final int MAX_RECORD_BYTES = 32 * 1024;
    @TempDir
    Path dir;

    /** A bad record: where it went, what it was, why it must be rejected. */
    private record Bad(String topic, int partition, long offset, byte[] value, String reason) {
    }

    @Test
    void badRecordsAreCountedAndDeadLetteredAndTheGoodOnesStored() {
        try (TestTopics topics = new TestTopics()) {
            String nativeTopic = topics.create("malformed-native", 2);
            String rwTopic = topics.create("malformed-rw", 1);
            String deadLetters = topics.create("malformed-dlq", 1);
            String group = SharedKafka.unique("group");
            TestPayloads nativePayloads = new TestPayloads(PayloadFormat.SLUICE, 200, 2, 41);
            TestPayloads rwPayloads = new TestPayloads(PayloadFormat.PROMETHEUS_REMOTE_WRITE, 200, 200, 1, 42);
            List<Bad> bad = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (int p = 0; p < 2; p++) {
                    topics.sendAndWait(nativeTopic, p, nativePayloads.record(p, 10, 3));
                    byte[] good = nativePayloads.templateFor(p);
                    sendBad(topics, bad, nativeTopic, p, nativeBad(round * 2 + p, good));
                    topics.sendAndWait(nativeTopic, p, nativePayloads.record(p, 10, 3));
                }
                topics.sendAndWait(rwTopic, 0, rwPayloads.record(0, 10, 3));
                sendBad(topics, bad, rwTopic, 0, rwBad(round, rwPayloads.templateFor(0)));
                topics.sendAndWait(rwTopic, 0, rwPayloads.record(0, 10, 3));
            }

            IngestConfig config = TestTopics.config(group, Map.of(nativeTopic, PayloadFormat.SLUICE,
                            rwTopic, PayloadFormat.PROMETHEUS_REMOTE_WRITE))
                    .toBuilder().deadLetterTopic(deadLetters)
                    .limits(new DecoderLimits(MAX_RECORD_BYTES, DecoderLimits.DEFAULT_MAX_UNCOMPRESSED_BYTES), LabelLimits.DEFAULT)
                    .build();
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, nativeTopic, 2);
                topics.awaitCommittedToEnd(group, rwTopic, 1);

                List<String> good = new ArrayList<>(nativePayloads.produced());
                good.addAll(rwPayloads.produced());
                assertThat(sluice.stored()).containsExactlyInAnyOrderElementsOf(good);

                Map<String, Integer> expectedReasons = new HashMap<>();
                bad.forEach(b -> expectedReasons.merge(b.reason, 1, Integer::sum));
                expectedReasons.forEach((reason, n) -> assertThat(sluice.counter("sluice.records.rejected", "reason", reason))
                        .as("rejected for %s", reason).isEqualTo((double) n));
                assertThat(sluice.counter("sluice.dead.lettered")).isEqualTo(bad.size());
                assertThat(sluice.counter("sluice.records.consumed")).as("every record, good or bad, is handled")
                        .isEqualTo(3 * 2 * 3 + 3 * 3);
                assertDeadLetters(deadLetters, bad);
            }
        }
    }

    private static void sendBad(TestTopics topics, List<Bad> bad, String topic, int partition, Object[] valueAndReason) {
        byte[] value = (byte[]) valueAndReason[0];
        long offset = topics.sendAndWait(topic, partition, value);
        bad.add(new Bad(topic, partition, offset, value, (String) valueAndReason[1]));
    }

    /** Six kinds of broken native batch, built from a good one. */
    private static Object[] nativeBad(int kind, byte[] good) {
        return switch (kind) {
            case 0 -> {
                byte[] v = good.clone();
                v[0] ^= 0x55;
                yield new Object[] {v, "bad_magic"};
            }
            case 1 -> {
                byte[] v = good.clone();
                v[v.length - 3] ^= 0x01; // the CRC32C covers the body
                yield new Object[] {v, "bad_checksum"};
            }
            case 2 -> new Object[] {nativeWithLabelValue(new byte[] {(byte) 0xC3, (byte) 0x28}), "invalid_utf8"};
            case 3 -> new Object[] {new byte[MAX_RECORD_BYTES + 1], "too_large"};
            case 4 -> new Object[] {Arrays.copyOf(good, 10), "truncated"};
            default -> new Object[] {null, "empty"}; // a tombstone
        };
    }

    private static byte[] nativeWithLabelValue(byte[] value) {
        byte[] name = "__name__".getBytes(StandardCharsets.UTF_8);
        byte[] canonical = new byte[2 + name.length + value.length];
        canonical[0] = (byte) name.length;
        System.arraycopy(name, 0, canonical, 1, name.length);
        canonical[1 + name.length] = (byte) value.length;
        System.arraycopy(value, 0, canonical, 2 + name.length, value.length);
        NativeBatchEncoder e = new NativeBatchEncoder(256, true, true);
        e.reset(1_763_800_000_000L);
        e.beginSeries(canonical);
        e.sample(1_763_800_000_000L, 1.0);
        e.endSeries();
        int length = e.finish();
        return Arrays.copyOf(e.buffer(), length);
    }

    /** Three kinds of broken remote-write request. */
    private static Object[] rwBad(int kind, byte[] good) {
        return switch (kind) {
            case 0 -> new Object[] {Arrays.copyOf(good, good.length / 2), "bad_compression"};
            case 1 -> new Object[] {remoteWrite("job", "node"), "missing_metric_name"};
            default -> new Object[] {remoteWrite("__name__", "up", "job", "node", "job", "other"), "duplicate_label_name"};
        };
    }

    private static byte[] remoteWrite(String... labels) {
        RemoteWriteEncoder e = new RemoteWriteEncoder(256);
        e.reset();
        e.beginSeries();
        for (int i = 0; i < labels.length; i += 2) {
            e.label(labels[i].getBytes(StandardCharsets.UTF_8), labels[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        e.sample(1_763_800_000_000L, 1.0);
        e.endSeries();
        int length = e.finish();
        return Arrays.copyOf(e.compressed(), length);
    }

    private static void assertDeadLetters(String topic, List<Bad> bad) {
        Map<String, ConsumerRecord<byte[], byte[]>> byCoordinates = new LinkedHashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedKafka.unique("dlq-reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            Await.until("the dead-letter topic to hold " + bad.size() + " records", Await.LONG, () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    byCoordinates.put(header(r, "sluice.source.topic") + "-" + header(r, "sluice.source.partition") + "@"
                            + header(r, "sluice.source.offset"), r);
                }
                return byCoordinates.size() >= bad.size();
            }, () -> "have " + byCoordinates.keySet());
        }
        assertThat(byCoordinates).hasSize(bad.size());
        for (Bad b : bad) {
            ConsumerRecord<byte[], byte[]> copy = byCoordinates.get(b.topic + "-" + b.partition + "@" + b.offset);
            assertThat(copy).as("dead letter of %s-%d@%d", b.topic, b.partition, b.offset).isNotNull();
            assertThat(header(copy, "sluice.error.reason")).isEqualTo(b.reason);
            assertThat(header(copy, "sluice.error.message")).isNotBlank();
            assertThat(copy.value()).isEqualTo(b.value);
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
