package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.StderrCapture;
import io.sluice.server.format.PayloadFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad line of an influx record costs only itself: the record's other lines are stored, the line is
 * counted in {@code sluice_decode_skipped_total} and logged (rate-limited) with the record's topic,
 * partition and offset, the line's number and why it was skipped.
 */
class InfluxSkippedLineLogTest {
    @TempDir
    Path dir;

    @Test
    void aSkippedLineIsLoggedWithItsRecordLineAndReason() throws Exception {
        // slf4j-simple writes to whatever System.err is at the time of each line
        try (StderrCapture captured = new StderrCapture(); TestTopics topics = new TestTopics()) {
            String topic = topics.create("influx-log", 1);
            long t = 1_763_800_000_000L * 1_000_000;
            long offset = topics.sendAndWait(topic, 0, ("skip_log v=1 " + t + "\n"
                    + "a broken line\n"
                    + "skip_log v=2 " + (t + 1_000_000) + "\n").getBytes(StandardCharsets.UTF_8));
            String group = SharedKafka.unique("influx-log");
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir),
                    TestTopics.config(group, Map.of(topic, PayloadFormat.INFLUX)))) {
                topics.awaitCommittedToEnd(group, topic, 1);
                assertThat(StoredSamples.of(sluice.head).size()).as("the record's good lines").isEqualTo(2);
                assertThat(sluice.scrape()).contains("sluice_decode_skipped_total{format=\"influx\",reason=\"line_syntax\"} 1.0");
            }
            assertThat(captured.text()).containsPattern("WARN .*skipped a line of record "
                    + Pattern.quote(topic + "-0@" + offset) + " \\(influx\\), kept the rest: line 2 \\(byte \\d+\\): syntax: ");
        }
    }
}
