package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.KafkaApi;
import io.sluice.server.StopSignal;
import io.sluice.server.TestHeads;
import io.sluice.server.TestHttp;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.SharedKafka;
import io.sluice.tools.Main;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `sluice serve` in-process against the test JVM's real broker: the broker check passes, it becomes
 * ready, stores what loadgen produced, stops on its signal with exit 0, and `wal inspect` then shows
 * the partitions' watermarks in the WALs it left.
 */
class ServeCommandTest {
    private static final int SERIES = 200;
    private static final long SAMPLES = 4_000;

    @TempDir
    Path dir;

    @Test
    void servesUntilStoppedThenTheWalsHoldTheWatermarks() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        EmbeddedKafka kafka = SharedKafka.broker();
        String topic = SharedKafka.unique("serve");
        kafka.createTopic(topic, 1);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        StopSignal stop = StopSignal.manual();
        StringWriter err = new StringWriter();
        String[] args = {"serve", "--kafka.bootstrap-servers=" + kafka.bootstrapServers(), "--kafka.topics=" + topic + "=sluice",
                "--kafka.group-id=" + SharedKafka.unique("serve-group"), "--data.dir=" + dir.resolve("data"),
                "--http.host=127.0.0.1", "--http.port=" + port, "--head.shards=2", "--wal.segment-size=1MiB"};
        CompletableFuture<Integer> serve = CompletableFuture.supplyAsync(() ->
                Main.run(args, new PrintWriter(new StringWriter()), new PrintWriter(err, true), Map.of(), () -> stop));
        InetSocketAddress http = new InetSocketAddress("127.0.0.1", port);

        Loadgen.run(LoadgenConfig.of(kafka.bootstrapServers(), topic, PayloadFormat.SLUICE, SERIES, SAMPLES));
        TestHeads.await(() -> appended(http) == SAMPLES && ready(http), "all samples stored and ready; stderr: " + err);

        stop.stop();
        assertThat(serve.get(2, TimeUnit.MINUTES)).isZero();
        assertThat(err.toString()).isEmpty();
        CliRun inspect = CliRun.run("wal", "inspect", dir.resolve("data").toString());
        assertThat(inspect.exitCode()).isZero();
        assertThat(inspect.out()).containsPattern(topic + "/0 +1\n"); // loadgen sent 2 records: offsets 0 and 1
    }

    static double appended(InetSocketAddress http) {
        try {
            return TestHttp.sample(TestHttp.get(http, "/metrics").body(), "sluice_samples_appended_total");
        } catch (Exception notListeningYet) {
            return Double.NaN;
        }
    }

    static boolean ready(InetSocketAddress http) {
        try {
            return TestHttp.get(http, "/-/ready").statusCode() == 200;
        } catch (Exception notListeningYet) {
            return false;
        }
    }
}
