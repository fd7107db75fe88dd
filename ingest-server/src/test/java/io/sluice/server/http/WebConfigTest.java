package io.sluice.server.http;

import io.sluice.server.config.HttpOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.server.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS, client certificates and basic auth from a web configuration file, with certificates made by
 * the test (openssl: a CA, a server certificate for 127.0.0.1 and a client certificate, both signed
 * by the CA) and curl as the client.
 */
class WebConfigTest {
    @TempDir
    Path dir;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private HttpServer server;
    private Path webConfig;

    @BeforeEach
    void certificates() throws Exception {
        TestCertificates.make(dir);
        webConfig = dir.resolve("web.yml");
        Counter.builder("sluice.test.events").register(registry).increment();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        registry.close();
    }

    private void start() throws IOException {
        Router router = new Router()
                .blocking(HttpMethod.GET, "/api/v1/labels", request -> Reply.text(HttpResponseStatus.OK, "labels"));
        HealthRoutes.addTo(router, () -> null);
        MetricsRoute.addTo(router, registry);
        server = HttpServer.start("127.0.0.1", 0, HttpOptions.defaults().withWebConfigFile(webConfig), router, registry);
    }

    @Test
    void tlsAndBasicAuthGuardEveryEndpointButHealthWhenAsked() throws Exception {
        Files.writeString(webConfig, """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                basic_auth_users:
                  alice: %s
                health_without_auth: true
                """.formatted(hash("secret")));
        start();
        assertThat(curl("/metrics", "-u", "alice:secret")).startsWith("200 ").contains("sluice_test_events_total 1.0");
        assertThat(curl("/api/v1/labels", "-u", "alice:secret")).isEqualTo("200 labels\n");
        assertThat(curl("/api/v1/labels", "-u", "alice:secret")).isEqualTo("200 labels\n"); // remembered
        assertThat(curl("/metrics")).startsWith("401 ");
        assertThat(curl("/metrics", "-u", "alice:wrong")).startsWith("401 ");
        assertThat(curl("/metrics", "-u", "bob:secret")).startsWith("401 ");
        assertThat(curl("/api/v1/labels")).isEqualTo("401 {\"status\":\"error\",\"errorType\":\"unauthorized\",\"error\":\"Unauthorized\"}");
        assertThat(curl("/-/healthy")).isEqualTo("200 Sluice is Healthy.\n");
        assertThat(curl("/-/ready")).startsWith("200 ");
        // Plain HTTP to the TLS port gets no answer.
        Process plain = new ProcessBuilder("curl", "-s", "-m", "10", "http://127.0.0.1:" + server.address().getPort() + "/-/healthy")
                .redirectErrorStream(true).start();
        assertThat(plain.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(plain.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).doesNotContain("Healthy");
    }

    @Test
    void clientCertificatesAreRequiredWhenConfigured() throws Exception {
        Files.writeString(webConfig, """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                  client_auth_type: RequireAndVerifyClientCert
                  client_ca_file: ca.crt
                """);
        start();
        assertThat(curl("/metrics", "--cert", dir.resolve("client.crt").toString(), "--key", dir.resolve("client.key").toString()))
                .startsWith("200 ");
        assertThat(curl("/metrics")).startsWith("failed");
        // A self-signed client certificate, not signed by the CA.
        TestCertificates.run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "self.key", "-out", "self.crt",
                "-days", "2", "-subj", "/CN=stranger");
        assertThat(curl("/metrics", "--cert", dir.resolve("self.crt").toString(), "--key", dir.resolve("self.key").toString()))
                .startsWith("failed");
    }

    @Test
    void bearerTokensAreCheckedByTheirDigest() throws Exception {
        String digest = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("t0k3n-for-tests".getBytes(StandardCharsets.UTF_8)));
        Files.writeString(webConfig, "bearer_token_sha256:\n  - " + digest.toUpperCase(java.util.Locale.ROOT) + "\n");
        start();
        assertThat(http("/api/v1/labels", "-H", "Authorization: Bearer t0k3n-for-tests")).isEqualTo("200 labels\n");
        assertThat(http("/api/v1/labels", "-H", "Authorization: Bearer other")).startsWith("401 ");
        assertThat(http("/api/v1/labels")).startsWith("401 ");
        assertThat(http("/-/healthy")).startsWith("401 "); // health is guarded too unless health_without_auth
        Files.writeString(webConfig, "bearer_token_sha256: [nothex]\n");
        server.close();
        server = null;
        assertThatThrownBy(this::start).isInstanceOf(IOException.class)
                .hasMessageContaining("bearer_token_sha256 has an entry that is not a SHA-256 in hex (64 digits): nothex");
    }

    @Test
    void aChangedFileIsReloadedAndABrokenOneKeepsThePrevious() throws Exception {
        Files.writeString(webConfig, "basic_auth_users:\n  alice: " + hash("one") + "\n");
        start();
        assertThat(http("/metrics", "-u", "alice:one")).startsWith("200 ");
        Files.writeString(webConfig, "basic_auth_users:\n  alice: " + hash("two") + "\n  bob: " + hash("three") + "\n");
        awaitStatus("/metrics", "200 ", "-u", "bob:three");
        assertThat(http("/metrics", "-u", "alice:one")).startsWith("401 ");
        assertThat(http("/metrics", "-u", "alice:two")).startsWith("200 ");

        Files.writeString(webConfig, "basic_auth_users:\n  alice: not-a-hash\n");
        Thread.sleep(3_000); // a few reload checks
        assertThat(http("/metrics", "-u", "alice:two")).startsWith("200 "); // the previous configuration stays
    }

    @Test
    void aBadFileIsOneLineAtStart() throws Exception {
        Files.writeString(webConfig, "basic_auth_user:\n  alice: x\n");
        assertThatThrownBy(this::start).isInstanceOf(IOException.class)
                .hasMessage("web configuration " + webConfig + ": unknown key basic_auth_user (known: basic_auth_users, "
                        + "bearer_token_sha256, health_without_auth, tls_server_config)");
        Files.writeString(webConfig, "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n");
        assertThatThrownBy(this::start).isInstanceOf(IOException.class)
                .hasMessage("web configuration " + webConfig + ": tls_server_config.cert_file " + dir.resolve("missing.crt")
                        + " cannot be read");
        Files.writeString(webConfig, "tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n");
        assertThatThrownBy(this::start).isInstanceOf(IOException.class).hasMessageContaining("cannot use the TLS certificate");
        Files.writeString(webConfig, "basic_auth_users:\n  alice: plain\n");
        assertThatThrownBy(this::start).isInstanceOf(IOException.class)
                .hasMessageContaining("basic_auth_users.alice is not a bcrypt hash");
    }

    // ---------------------------------------------------------------- helpers

    private static String hash(String password) {
        return BCrypt.withDefaults().hashToString(4, password.toCharArray());
    }

    private void awaitStatus(String path, String status, String... args) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!http(path, args).startsWith(status)) {
            assertThat(System.nanoTime()).as("reloaded within 30 s").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** {@code "<status> <body>"} from curl over TLS (trusting the test CA), or {@code "failed ..."}. */
    private String curl(String path, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-m", "20", "--cacert", dir.resolve("ca.crt").toString(),
                "-w", "\n%{http_code}"));
        cmd.addAll(List.of(args));
        cmd.add("https://127.0.0.1:" + server.address().getPort() + path);
        return exchange(cmd);
    }

    /** Like {@link #curl} over plain HTTP. */
    private String http(String path, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-m", "20", "-w", "\n%{http_code}"));
        cmd.addAll(List.of(args));
        cmd.add("http://127.0.0.1:" + server.address().getPort() + path);
        return exchange(cmd);
    }

    private static String exchange(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            return "failed " + p.exitValue() + ": " + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        int nl = out.lastIndexOf('\n');
        return out.substring(nl + 1) + " " + out.substring(0, nl);
    }
}
