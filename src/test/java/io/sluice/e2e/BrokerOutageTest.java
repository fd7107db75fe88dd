package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away for 30 s in the middle of the stream and comes back on the same address with
 * its data: the server keeps answering HTTP all along (health, an export of one series), reconnects
 * by itself, and stores every produced sample once. The test has its own
 * broker (the shared one must not go away under other tests), restarted with
 * {@link EmbeddedKafka#start(Path, int, int)}.
 */
class BrokerOutageTest {
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    /** A query during the outage: one series, so asking every 50 ms stays cheap. */
    private static final String ONE_SERIES_EXPORT = "/api/v1/export?match[]="
            + URLEncoder.encode("{__name__=\"" + KnownSamples.METRIC + "\",series=\"s0000\"}", StandardCharsets.UTF_8);

    private EmbeddedKafka kafka;
    private CrashScenario scenario;

    @AfterEach
    void cleanUp() {
        try {
            if (scenario != null) {
                scenario.close();
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    @Test
    void serverServesThroughABrokerOutageAndStoresEverythingOnce() throws Exception {
        Path brokerDir = Files.createDirectories(E2eEnvironment.newWorkDir("broker-outage").resolve("kafka"));
        kafka = EmbeddedKafka.start(brokerDir);
        scenario = new CrashScenario("broker-outage", kafka, null, List.of());
        SampleProducer producer = scenario.startProducer(Duration.ofMillis(50), 0, Integer.MAX_VALUE);
        ServerProcess server = scenario.launcher().startReady();
        ConsumerProgress progress = scenario.progress();
        Poll.until("a first commit", Duration.ofMinutes(2), () -> !progress.committed().isEmpty(),
                () -> "nothing committed");

        int brokerPort = kafka.brokerPort();
        int controllerPort = kafka.controllerPort();
        kafka.close();
        kafka = null;
        TreeMap<String, Integer> answers = new TreeMap<>(); // "path status" -> count, while the broker is down
        long end = System.nanoTime() + OUTAGE.toNanos();
        while (System.nanoTime() - end < 0) {
            count(answers, server, "/-/healthy");
            count(answers, server, ONE_SERIES_EXPORT);
            Poll.pause();
        }
        assertThat(server.isAlive()).as("server alive after the outage").isTrue();
        kafka = EmbeddedKafka.start(brokerDir, brokerPort, controllerPort);
        scenario.brokerRestarted(kafka);

        // Ingestion resumed: commits move past where they stood when the broker came back.
        long committedAtRestart = sum(scenario.progress().committed().values());
        Poll.until("commits after the outage", Duration.ofMinutes(2),
                () -> sum(scenario.progress().committed().values()) > committedAtRestart, () -> "stuck at " + committedAtRestart);
        int rounds = producer.stop();
        CrashScenario.Verdict verdict = scenario.verify(rounds, "outage=" + OUTAGE.toSeconds() + "s answers-during-outage=" + answers);

        assertThat(answers.keySet()).as("HTTP answers while the broker was down").allMatch(k -> k.endsWith(" 200"));
        assertThat(answers.getOrDefault("/-/healthy 200", 0)).isGreaterThan(10);
        assertThat(answers.getOrDefault("export 200", 0)).isGreaterThan(10);
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }

    private static void count(TreeMap<String, Integer> answers, ServerProcess server, String path) {
        String key;
        try {
            HttpResponse<String> r = server.get(path);
            key = (path.startsWith("/-/") ? path : "export") + " " + r.statusCode();
        } catch (IOException e) {
            key = path + " " + e.getClass().getSimpleName();
        }
        answers.merge(key, 1, Integer::sum);
    }

    private static long sum(Collection<Long> values) {
        return values.stream().mapToLong(Long::longValue).sum();
    }
}
