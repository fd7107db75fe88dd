package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.KafkaApi;
import io.sluice.server.StopSignal;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.Main;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;

/**
 * `sluice broker` as docker/build-local.sh uses it: it prints its address once its topics exist, takes
 * records, stops on its signal with exit 0 and deletes its temporary directory. This test starts its own
 * broker (the command under test is one), in addition to the test JVM's shared one.
 */
class BrokerCommandTest {
    private static final Pattern READY = Pattern.compile("bootstrap-servers: (127\\.0\\.0\\.1:\\d+)");
    private static final Pattern DATA = Pattern.compile("Kafka broker data in (\\S+) \\(deleted on exit\\)");

    @Test
    void createsTopicsServesAndCleansUpOnStop() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        StopSignal stop = StopSignal.manual();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> broker = CompletableFuture.supplyAsync(() -> Main.run(
                new String[] {"broker", "--topic", "smoke:3", "--topic", "other"},
                new PrintWriter(out, true), new PrintWriter(err, true), Map.of(), () -> stop));
        try {
            String bootstrap = awaitGroup(READY, out, broker);
            Path data = Path.of(awaitGroup(DATA, out, broker));
            assertThat(data).isDirectory();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                Map<String, TopicDescription> topics = admin.describeTopics(List.of("smoke", "other"))
                        .allTopicNames().get(30, TimeUnit.SECONDS);
                assertThat(topics.get("smoke").partitions()).hasSize(3);
                assertThat(topics.get("other").partitions()).hasSize(1);
            }
            Loadgen.run(LoadgenConfig.of(bootstrap, "smoke", PayloadFormat.SLUICE, 10, 100)); // throws if refused

            stop.stop();
            assertThat(broker.get(2, TimeUnit.MINUTES)).as(err.toString()).isZero();
            assertThat(out.toString()).contains("Broker stopped.");
            assertThat(err.toString()).isEmpty();
            assertThat(Files.exists(data)).as("temporary directory deleted").isFalse();
        } finally {
            stop.stop();
        }
    }

    @Test
    void aBadTopicIsOneLineAndExitCode2() {
        CliRun run = CliRun.run("broker", "--topic", "metrics:0");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.err()).contains("'metrics:0' is not NAME or NAME:PARTITIONS with PARTITIONS >= 1");
    }

    /** Waits for a line of {@code out} that matches and returns its first group. */
    private static String awaitGroup(Pattern pattern, StringWriter out, CompletableFuture<Integer> broker)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            Matcher m = pattern.matcher(out.toString());
            if (m.find()) {
                return m.group(1);
            }
            assertThat(broker).as("broker command still running; out: " + out).isNotDone();
            Thread.sleep(50); // polling the command's output, not synchronizing threads
        }
        throw new AssertionError("no match of " + pattern + " in: " + out);
    }
}
