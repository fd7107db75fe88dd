package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.sluice.server.KafkaApi;
import io.sluice.server.TestHttp;
import io.sluice.server.kafka.SharedKafka;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `sluice serve` as its own process reloads {@code http.web-config-file} on {@code kill -HUP}: a changed
 * password takes effect, a broken file keeps the previous configuration and logs one line. The file is
 * rewritten with its size and modification time kept, so the once-a-second change check cannot be
 * what reloads it (the test shows the new password refused until the signal).
 */
class ServeSighupTest {
    @TempDir
    Path dir;

    @Test
    void sighupReloadsTheWebConfiguration() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        EmbeddedKafka kafka = SharedKafka.broker();
        String topic = SharedKafka.unique("hup");
        kafka.createTopic(topic, 1);
        Path web = dir.resolve("web.yml");
        Files.writeString(web, webConfig(hash("one")));
        FileTime written = Files.getLastModifiedTime(web);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path stderr = dir.resolve("serve.err");
        Process serve = new ProcessBuilder(SluiceProcess.command("384m", List.of("serve",
                "--kafka.bootstrap-servers=" + kafka.bootstrapServers(), "--kafka.topics=" + topic + "=sluice",
                "--kafka.group-id=" + SharedKafka.unique("hup-group"), "--data.dir=" + dir.resolve("data"),
                "--http.host=127.0.0.1", "--http.port=" + port, "--head.shards=1", "--http.web-config-file=" + web)))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
        InetSocketAddress http = new InetSocketAddress("127.0.0.1", port);
        try {
            awaitStatus(http, "one", 200, serve, stderr);

            rewriteKeepingSizeAndTime(web, webConfig(hash("two")), written);
            Thread.sleep(2_500); // two change checks
            assertThat(status(http, "two")).as("no reload without the signal").isEqualTo(401);
            hangup(serve);
            awaitStatus(http, "two", 200, serve, stderr);
            assertThat(status(http, "one")).isEqualTo(401);

            String broken = "basic_auth_users:\n  alice: not-a-bcrypt-hash\n";
            String same = webConfig(hash("three"));
            rewriteKeepingSizeAndTime(web, broken + "#".repeat(same.length() - broken.length() - 1) + "\n", written);
            hangup(serve);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.readString(stderr).contains("keeping the previous web configuration")) {
                assertThat(System.nanoTime()).as("logged within 30 s: " + Files.readString(stderr)).isLessThan(deadline);
                Thread.sleep(100);
            }
            assertThat(status(http, "two")).as("the previous configuration is kept").isEqualTo(200);

            serve.destroy(); // SIGTERM
            assertThat(serve.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(serve.exitValue()).isZero();
            List<String> lines = Files.readAllLines(stderr);
            assertThat(lines.stream().filter(l -> l.contains("reloaded the web configuration " + web + " (SIGHUP)"))).hasSize(1);
            assertThat(lines.stream().filter(l -> l.contains("web configuration " + web
                    + ": basic_auth_users.alice is not a bcrypt hash") && l.endsWith("; keeping the previous web configuration")))
                    .hasSize(1);
            assertThat(lines).noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
        } finally {
            serve.destroyForcibly();
        }
    }

    private static String webConfig(String hash) {
        return "basic_auth_users:\n  alice: " + hash + "\nhealth_without_auth: true\n";
    }

    /** bcrypt at cost 4: every hash has 60 characters, so every file written here has the same size. */
    private static String hash(String password) {
        return BCrypt.withDefaults().hashToString(4, password.toCharArray());
    }

    private static void rewriteKeepingSizeAndTime(Path file, String text, FileTime time) throws Exception {
        long size = Files.size(file);
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, time);
        assertThat(Files.size(file)).isEqualTo(size);
    }

    private static void hangup(Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).inheritIO().start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    /** The status of GET /metrics as alice with {@code password}; -1 while not listening. */
    private static int status(InetSocketAddress http, String password) {
        try {
            String basic = Base64.getEncoder().encodeToString(("alice:" + password).getBytes(StandardCharsets.UTF_8));
            return TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(http, "/metrics"))
                    .header("Authorization", "Basic " + basic).build()).statusCode();
        } catch (Exception notListeningYet) {
            return -1;
        }
    }

    private static void awaitStatus(InetSocketAddress http, String password, int expected, Process serve, Path stderr)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (status(http, password) != expected) {
            assertThat(serve.isAlive()).as("serve runs: " + Files.readString(stderr)).isTrue();
            assertThat(System.nanoTime()).as("status " + expected + " within 60 s: " + Files.readString(stderr))
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
