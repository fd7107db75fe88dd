package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.sluice.server.TestCertificates;
import io.sluice.server.TestHttp;
import io.sluice.server.config.HttpOptions;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.kafka.ReferencePrometheus;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus server reads Sluice through {@code remote_read} with {@code basic_auth} and
 * {@code tls_config}, as users of a secured Prometheus configure it. The {@code prometheus} binary is the
 * reference build of the differential test ({@link ReferencePrometheus#binaries()}, built on first use).
 */
class RemoteReadTlsTest {
    @TempDir
    Path dir;

    @Test
    void prometheusReadsThroughTlsAndBasicAuth() throws Exception {
        String bin = ReferencePrometheus.binaries().resolve("prometheus").toString();
        TestCertificates.make(dir);
        Path web = dir.resolve("web.yml");
        Files.writeString(web, """
                tls_server_config:
                  cert_file: server.crt
                  key_file: server.key
                basic_auth_users:
                  alice: %s
                """.formatted(BCrypt.withDefaults().hashToString(4, "secret".toCharArray())));
        try (QueryFixture sluice = new QueryFixture(dir.resolve("head"), 2, QueryOptions.DEFAULTS,
                HttpOptions.defaults().withWebConfigFile(web))) {
            long now = System.currentTimeMillis();
            for (int i = 0; i < 3; i++) {
                sluice.append(Map.of("__name__", "tls_read_test", "instance", "host-" + i), new long[] {now - 60_000, now - 30_000},
                        new double[] {i, i + 10});
            }
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            }
            for (String password : new String[] {"secret", "wrong"}) {
                Path config = dir.resolve("prometheus-" + password + ".yml");
                Files.writeString(config, """
                        remote_read:
                          - url: https://127.0.0.1:%d/api/v1/read
                            read_recent: true
                            basic_auth: {username: alice, password: %s}
                            tls_config: {ca_file: %s}
                        """.formatted(sluice.http.address().getPort(), password, dir.resolve("ca.crt")));
                Process prometheus = new ProcessBuilder(bin, "--config.file=" + config,
                        "--storage.tsdb.path=" + dir.resolve("prometheus-data-" + password),
                        "--web.listen-address=127.0.0.1:" + port)
                        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus-" + password + ".log").toFile()).start();
                try {
                    String body = query(new InetSocketAddress("127.0.0.1", port), "sum(tls_read_test)");
                    if (password.equals("secret")) {
                        assertThat(body).contains("\"status\":\"success\"").contains("\"33\"");
                    } else {
                        assertThat(body).doesNotContain("\"33\"").contains("401");
                    }
                } finally {
                    prometheus.destroy();
                    prometheus.waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** The body of Prometheus' answer to an instant query, retried until Prometheus listens (up to 60 s). */
    private static String query(InetSocketAddress prometheus, String promql) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try {
                HttpResponse<String> r = TestHttp.get(prometheus, "/api/v1/query?query=" + QueryFixture.enc(promql));
                if (r.statusCode() != 503) {
                    return r.body();
                }
            } catch (java.io.IOException e) {
                // not listening yet
            }
            assertThat(System.nanoTime()).as("Prometheus answers within 60 s").isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
