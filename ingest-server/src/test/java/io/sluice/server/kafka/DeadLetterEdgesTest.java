package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.StderrCapture;
import io.sluice.server.format.PayloadFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dead-letter topic at its edges, through a real broker: a copy that fails (a record over the
 * dead-letter producer's {@code max.request.size}) is logged once, saying it was not copied, and
 * counted; an influx record stored without some of its lines is copied when
 * {@code kafka.dead-letter-skipped-lines} is set, with the number of lines in a header.
 */
class DeadLetterEdgesTest {
    private static final long T_NS = 1_763_800_000_000L * 1_000_000;
    @TempDir
    Path dir;

    @Test
    void aFailedCopyIsLoggedOnceAsNotCopied() {
        try (StderrCapture captured = new StderrCapture(); TestTopics topics = new TestTopics()) {
            String topic = topics.create("dlq-fail", 1);
            String deadLetters = topics.create("dlq-fail-dlq", 1);
            // Over the producer's max.request.size below: the copy fails; a different reason from the
            // small one, since the log keeps one line per reason per 10 s.
            byte[] big = ("{" + "x".repeat(8_000)).getBytes(StandardCharsets.UTF_8); // bad_json
            long bigOffset = topics.sendAndWait(topic, 0, big);
            long smallOffset = topics.sendAndWait(topic, 0, "{\"value\":\"1\"}".getBytes(StandardCharsets.UTF_8)); // bad_schema
            String group = SharedKafka.unique("dlq-fail");
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.JSON)).toBuilder()
                    .deadLetterTopic(deadLetters)
                    .kafkaProperties(Map.of("max.request.size", "4096"))
                    .build();
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, 1);
                assertThat(sluice.counter("sluice.dead.letter.failures")).isEqualTo(1.0);
                assertThat(sluice.counter("sluice.dead.lettered")).isEqualTo(1.0);
            }
            String log = captured.text();
            String bigRecord = Pattern.quote(topic + "-0@" + bigOffset);
            assertThat(log).containsPattern("WARN .*rejected record " + bigRecord + " \\(8001 bytes, reason bad_json\\): .*"
                    + "; NOT copied to dead-letter topic " + Pattern.quote(deadLetters) + ": .*max.request.size");
            assertThat(log.lines().filter(l -> l.contains(topic + "-0@" + bigOffset)).count())
                    .as("one line about the record that could not be copied").isEqualTo(1);
            assertThat(log).containsPattern("WARN .*rejected record " + Pattern.quote(topic + "-0@" + smallOffset)
                    + " .*reason bad_schema\\): .*; copied to dead-letter topic " + Pattern.quote(deadLetters));
            assertThat(log.lines().filter(l -> l.contains(topic + "-0@" + smallOffset)).count()).isEqualTo(1);
        }
    }

    @Test
    void anInfluxRecordWithBadLinesIsCopiedWithTheirNumberWhenAskedTo() {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("dlq-lines", 1);
            String deadLetters = topics.create("dlq-lines-dlq", 1);
            byte[] withBadLines = ("dlq_lines v=1 " + T_NS + "\n"
                    + "a broken line\n"
                    + "dlq_lines v=2 " + (T_NS + 1_000_000) + "\n"
                    + "dlq_lines,t= v=3 " + (T_NS + 2_000_000) + "\n").getBytes(StandardCharsets.UTF_8);
            topics.sendAndWait(topic, 0, ("dlq_lines v=0 " + (T_NS - 1_000_000) + "\n").getBytes(StandardCharsets.UTF_8));
            long badOffset = topics.sendAndWait(topic, 0, withBadLines);
            String group = SharedKafka.unique("dlq-lines");
            IngestConfig config = TestTopics.config(group, Map.of(topic, PayloadFormat.INFLUX)).toBuilder()
                    .deadLetterTopic(deadLetters)
                    .deadLetterSkippedLines(true)
                    .build();
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), config)) {
                topics.awaitCommittedToEnd(group, topic, 1);
                assertThat(StoredSamples.of(sluice.head).size()).as("the good lines are stored").isEqualTo(3);
                assertThat(sluice.counter("sluice.dead.lettered")).isEqualTo(1.0);
            }
            List<ConsumerRecord<byte[], byte[]>> copies = read(deadLetters, 1);
            assertThat(copies).hasSize(1);
            ConsumerRecord<byte[], byte[]> copy = copies.getFirst();
            assertThat(copy.value()).isEqualTo(withBadLines);
            assertThat(header(copy, "sluice.error.reason")).isEqualTo("skipped_lines");
            assertThat(header(copy, "sluice.skipped.lines")).isEqualTo("2");
            assertThat(header(copy, "sluice.source.offset")).isEqualTo(Long.toString(badOffset));
            assertThat(header(copy, "sluice.error.message")).startsWith("2 line(s) skipped, the last: line 4 ");
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(String topic, int atLeast) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedKafka.unique("dlq-reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            Await.until("the dead-letter topic to hold " + atLeast + " records", Await.LONG, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= atLeast;
            }, () -> "have " + records.size());
            consumer.poll(Duration.ofMillis(500)).forEach(records::add); // nothing more
        }
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
