package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.KafkaApi;
import io.sluice.server.StopSignal;
import io.sluice.server.TestHeads;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.SecureKafka;
import io.sluice.server.kafka.SharedKafka;
import io.sluice.tools.Main;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `sluice serve` against a broker listening with TLS and SASL/SCRAM ({@link SecureKafka}): it consumes
 * through SASL_SSL and SSL; and, as a separate process, each classic mistake exits 2 within seconds
 * with exactly one line on stderr naming the cause and no stack trace.
 */
class ServeKafkaSecurityTest {
    private static final int SERIES = 50;
    private static final long SAMPLES = 1_000;

    @TempDir
    Path dir;

    @Test
    void consumesThroughSaslSslAndSsl() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        EmbeddedKafka kafka = SecureKafka.broker();
        serveAndStore(kafka, "SASL_SSL", SecureKafka.clientFlags("SASL_SSL", "SCRAM-SHA-512"));
        serveAndStore(kafka, "SSL", SecureKafka.clientFlags("SSL", null));
    }

    private void serveAndStore(EmbeddedKafka kafka, String listener, List<String> security) throws Exception {
        String topic = SharedKafka.unique("secure");
        kafka.createTopic(topic, 1);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<String> args = new ArrayList<>(List.of("serve", "--kafka.bootstrap-servers=" + kafka.bootstrapServers(listener),
                "--kafka.topics=" + topic + "=sluice", "--kafka.group-id=" + SharedKafka.unique("secure-group"),
                "--data.dir=" + dir.resolve(listener), "--http.host=127.0.0.1", "--http.port=" + port, "--head.shards=1"));
        args.addAll(security);
        StopSignal stop = StopSignal.manual();
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> serve = CompletableFuture.supplyAsync(() -> Main.run(args.toArray(String[]::new),
                new PrintWriter(new StringWriter()), new PrintWriter(err, true), Map.of(), () -> stop));
        InetSocketAddress http = new InetSocketAddress("127.0.0.1", port);
        try {
            Loadgen.run(LoadgenConfig.of(kafka.bootstrapServers(), topic, PayloadFormat.SLUICE, SERIES, SAMPLES));
            TestHeads.await(() -> serve.isDone() || ServeCommandTest.appended(http) == SAMPLES && ServeCommandTest.ready(http),
                    listener + ": all samples stored and ready; stderr: " + err);
            assertThat(serve.isDone()).as(listener + " serve ended early: " + err).isFalse();
        } finally {
            stop.stop();
        }
        assertThat(serve.get(2, TimeUnit.MINUTES)).isZero();
        assertThat(err.toString()).as(listener).isEmpty();
    }

    @Test
    void eachMistakeIsOneLineOnStderrAndExitCode2() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        EmbeddedKafka kafka = SecureKafka.broker();
        String plaintext = kafka.bootstrapServers();
        String saslSsl = kafka.bootstrapServers("SASL_SSL");
        List<String> good = SecureKafka.clientFlags("SASL_SSL", "SCRAM-SHA-256");

        assertOneLine(plaintext, good, "sluice: kafka.security.protocol=SASL_SSL: the broker at " + plaintext
                + " did not speak TLS on this listener (");
        assertOneLine(saslSsl, SecureKafka.with(good, "--kafka.sasl.jaas.config=" + SecureKafka.jaas("SCRAM-SHA-256", "wrong")),
                "sluice: SASL authentication failed for user " + SecureKafka.SCRAM_USER + " (SCRAM-SHA-256) at " + saslSsl
                        + ": Authentication failed during authentication due to invalid credentials");
        assertOneLine(saslSsl, SecureKafka.with(good, "--kafka.ssl.truststore.location=/nonexistent.jks"),
                "sluice: kafka.ssl.truststore.location: /nonexistent.jks cannot be read (no such file)");
        assertOneLine(saslSsl, SecureKafka.with(good, "--kafka.ssl.truststore.password=wrong"),
                "sluice: kafka.ssl.truststore.password: it does not open ");
        assertOneLine("no-such-host.invalid:9093", good,
                "sluice: kafka.bootstrap-servers: no broker reachable: no-such-host.invalid:9093 (unknown host)");
    }

    /** `sluice serve` as its own JVM exits 2 within 60 s with one stderr line starting with {@code expected}. */
    private void assertOneLine(String bootstrap, List<String> security, String expected) throws Exception {
        Path stderr = Files.createTempFile(dir, "serve", ".err");
        List<String> command = new ArrayList<>(List.of("serve", "--kafka.bootstrap-servers=" + bootstrap,
                "--kafka.topics=m=sluice", "--data.dir=" + dir.resolve("data"), "--http.port=0"));
        command.addAll(security);
        Process serve = new ProcessBuilder(SluiceProcess.command("256m", command)).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile()).start();
        try {
            assertThat(serve.waitFor(60, TimeUnit.SECONDS)).as("exits within 60 s: " + expected).isTrue(); // ~3 s here, JVM start included
            List<String> lines = Files.readAllLines(stderr);
            assertThat(serve.exitValue()).as(lines.toString()).isEqualTo(ExitCodes.CONFIG);
            assertThat(lines).as("stderr").hasSize(1);
            assertThat(lines.getFirst()).startsWith(expected);
        } finally {
            serve.destroyForcibly();
        }
    }
}
