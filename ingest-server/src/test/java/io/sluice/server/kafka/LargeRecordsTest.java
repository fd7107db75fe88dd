package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.kafka.TopicLeaders;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records far larger than a shard batch (256 KiB) through a real broker: an influx record of 100,000
 * lines and an OTLP request of 50,000 points are split across batches and come back complete through
 * {@code /api/v1/export}; a json record with 60 KB of labels is stored. What no configured limit admits
 * is rejected with its reason, counted and dead-lettered, never stalls the partition: an influx record
 * above {@code limits.record-bytes}, and a json series whose labels alone exceed a batch. The records
 * after them are stored. Topics and producers allow 16 MiB messages (Kafka's default is 1 MiB).
 */
class LargeRecordsTest {
    private static final long T = FormatCases.T;
    private static final int MAX_MESSAGE_BYTES = 16 << 20;
    private static final int RECORD_LIMIT_BYTES = 7 << 20;
    @TempDir
    Path dir;

    @Test
    void recordsLargerThanABatchAreStoredWholeAndRecordsAboveTheLimitsAreDeadLettered() throws Exception {
        EmbeddedKafka kafka = SharedKafka.broker();
        String influx = bigTopic(kafka, "large-influx");
        String otlp = bigTopic(kafka, "large-otlp");
        String json = bigTopic(kafka, "large-json");
        String deadLetters = bigTopic(kafka, "large-dlq");
        Random random = new Random(20261122);
        Map<String, List<String>> expected = new HashMap<>();
        Map<String, Long> dropped = new HashMap<>();
        List<Long> rejectedOffsets = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
            List<EncodedSeries> influxBig = series("influx-big", "big_value", 10_000, 10, random);
            expected.put("influx-big", FormatCases.expected(PayloadFormat.INFLUX, influxBig, dropped));
            send(producer, influx, one(PayloadFormat.INFLUX, influxBig));
            byte[] overLimit = one(PayloadFormat.INFLUX, series("influx-over", "over_value", 15_000, 10, random));
            assertThat(overLimit.length).isGreaterThan(RECORD_LIMIT_BYTES);
            rejectedOffsets.add(send(producer, influx, overLimit));
            List<EncodedSeries> influxAfter = series("influx-after", "after_value", 3, 2, random);
            expected.put("influx-after", FormatCases.expected(PayloadFormat.INFLUX, influxAfter, dropped));
            send(producer, influx, one(PayloadFormat.INFLUX, influxAfter));

            List<EncodedSeries> otlpBig = series("otlp-big", "big_value", 5_000, 10, random);
            expected.put("otlp-big", FormatCases.expected(PayloadFormat.OTLP, otlpBig, dropped));
            send(producer, otlp, one(PayloadFormat.OTLP, otlpBig));

            List<EncodedSeries> jsonWide = List.of(wide("json-wide", 4, random));
            expected.put("json-wide", FormatCases.expected(PayloadFormat.JSON, jsonWide, dropped));
            send(producer, json, one(PayloadFormat.JSON, jsonWide));
            rejectedOffsets.add(send(producer, json, one(PayloadFormat.JSON, List.of(wide("json-too-wide", 20, random)))));
            List<EncodedSeries> jsonAfter = series("json-after", "after_value", 1, 1, random);
            expected.put("json-after", FormatCases.expected(PayloadFormat.JSON, jsonAfter, dropped));
            send(producer, json, one(PayloadFormat.JSON, jsonAfter));
        }
        assertThat(dropped).isEmpty();

        String group = SharedKafka.unique("large");
        IngestConfig config = TestTopics.config(group, Map.of(influx, PayloadFormat.INFLUX, otlp, PayloadFormat.OTLP,
                        json, PayloadFormat.JSON))
                .toBuilder().deadLetterTopic(deadLetters)
                .kafkaProperties(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_MESSAGE_BYTES)))
                .limits(new DecoderLimits(RECORD_LIMIT_BYTES, DecoderLimits.DEFAULT_MAX_UNCOMPRESSED_BYTES), LabelLimits.DEFAULT)
                .build();
        try (TestTopics topics = new TestTopics();
                IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
            for (String topic : List.of(influx, otlp, json)) {
                topics.awaitCommittedToEnd(group, topic, 1);
            }
            try (HttpReadBack api = new HttpReadBack(sluice.head, sluice.registry)) {
                for (Map.Entry<String, List<String>> e : expected.entrySet()) {
                    List<String> exported = api.export("{fmt=\"" + e.getKey() + "\"}");
                    assertThat(exported).as("export of %s", e.getKey()).hasSize(e.getValue().size())
                            .containsExactlyInAnyOrderElementsOf(e.getValue().stream().map(HttpReadBack::exportForm).toList());
                }
                assertThat(api.export("{fmt=~\"influx-over|json-too-wide\"}")).as("nothing of a rejected record").isEmpty();
            }
            assertThat(sluice.count(ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(100_000 + 6 + 50_000 + 1 + 1);
            assertThat(sluice.count(ShardStats.Counter.SAMPLES_DUPLICATE)).as("no part of a record applied twice").isZero();
            assertThat(sluice.counter("sluice.records.rejected", "reason", "too_large")).isEqualTo(2.0);
            assertThat(sluice.counter("sluice.dead.lettered")).isEqualTo(2.0);
        }
        assertThat(rejectedOffsets).containsExactly(1L, 1L);
    }

    /** {@code count} series of {@code samples} samples each, 15 s apart, labelled {@code fmt=<fmt>}. */
    private static List<EncodedSeries> series(String fmt, String name, int count, int samples, Random random) {
        List<EncodedSeries> out = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("fmt", fmt);
            labels.put("__name__", name);
            labels.put("host", String.format("h%05d", s));
            long[] ts = new long[samples];
            long[] bits = new long[samples];
            for (int i = 0; i < samples; i++) {
                ts[i] = T + i * 15_000L;
                bits[i] = Double.doubleToRawLongBits(random.nextInt(1_000_000) / 100.0);
            }
            out.add(new EncodedSeries(labels, ts, bits));
        }
        return out;
    }

    /** One series with {@code labels} extra labels of 15,000 bytes each. */
    private static EncodedSeries wide(String fmt, int labels, Random random) {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("fmt", fmt);
        map.put("__name__", "wide");
        for (int i = 0; i < labels; i++) {
            StringBuilder value = new StringBuilder(15_000);
            for (int c = 0; c < 15_000; c++) {
                value.append((char) ('a' + random.nextInt(26)));
            }
            map.put(String.format("w%02d", i), value.toString());
        }
        return new EncodedSeries(map, new long[] {T}, new long[] {Double.doubleToRawLongBits(1.5)});
    }

    private static byte[] one(PayloadFormat format, List<EncodedSeries> series) {
        List<byte[]> values = FormatCases.encode(format, series);
        assertThat(values).as("one record").hasSize(1);
        return values.getFirst();
    }

    private static String bigTopic(EmbeddedKafka kafka, String prefix) throws Exception {
        String topic = SharedKafka.unique(prefix);
        kafka.admin().createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                .configs(Map.of("max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES))))).all().get(60, TimeUnit.SECONDS);
        TopicLeaders.await(kafka.admin(), topic, 1, Duration.ofSeconds(60));
        return topic;
    }

    private static KafkaProducer<byte[], byte[]> producer(EmbeddedKafka kafka) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_MESSAGE_BYTES),
                ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(4 * MAX_MESSAGE_BYTES)),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static long send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, 0, null, value)).get(60, TimeUnit.SECONDS).offset();
    }
}
