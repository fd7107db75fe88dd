package io.sluice.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Thanos Querier ({@code thanos query}, built from the Go module proxy by
 * {@code src/test/thanos/build.sh}, cached outside the repository) on loopback, with a strict
 * endpoint per Sluice instance (kept in the fan-out while it is down, so its absence is a
 * partial-response warning rather than a silently shorter answer), {@code sluice_instance} as the
 * replica label and the chain deduplication (merges the instances' samples of a series, one sample
 * per timestamp). Used by the test thread only.
 */
final class ThanosQuerier implements AutoCloseable {
    static final String REPLICA_LABEL = "sluice_instance";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(60);

    private final Process process;
    private final int httpPort;
    private final Path log;

    private ThanosQuerier(Process process, int httpPort, Path log) {
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
    }

    /**
     * The Thanos binary: runs the build script (which returns at once when the binary is cached).
     * A missing Go toolchain or a failed build fails the test with the script's message.
     */
    static Path binary(Path logDir) {
        String script = System.getProperty("sluice.thanos.build", "thanos/build.sh");
        try {
            Files.createDirectories(logDir);
            Path buildLog = logDir.resolve("thanos-build.log");
            Process build = new ProcessBuilder("bash", script).redirectError(buildLog.toFile()).start();
            String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!build.waitFor(BUILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                build.destroyForcibly();
                throw new AssertionError("the Thanos build (" + script + ") did not finish within " + BUILD_TIMEOUT);
            }
            List<String> errors = Files.readAllLines(buildLog);
            if (build.exitValue() != 0) {
                throw new AssertionError("the Thanos binary could not be built: "
                        + (errors.isEmpty() ? "exit " + build.exitValue() : errors.get(errors.size() - 1))
                        + " (log " + buildLog + ")");
            }
            return Path.of(out.substring(out.lastIndexOf('\n') + 1));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + script, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while building Thanos", e);
        }
    }

    /**
     * A self-signed certificate for 127.0.0.1 made by the real openssl: {@code dir/server.crt} and
     * its key {@code dir/server.key} (PKCS#8 PEM); the certificate is its own CA.
     */
    static Path selfSignedCertificate(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
                "-out", "server.crt", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
                .directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("openssl could not make a certificate: " + out);
        }
        return dir.resolve("server.crt");
    }

    /** The Querier over {@code storePorts}; with {@code tlsCa} non-null it talks TLS to them, verifying with that CA. */
    static ThanosQuerier start(Path binary, List<Integer> storePorts, Path logDir, Path tlsCa) throws IOException {
        int httpPort = E2eEnvironment.freePort();
        List<String> command = new ArrayList<>(List.of(binary.toString(), "query",
                "--http-address=127.0.0.1:" + httpPort,
                "--grpc-address=127.0.0.1:" + E2eEnvironment.freePort(),
                "--query.replica-label=" + REPLICA_LABEL,
                "--deduplication.func=chain",
                "--query.promql-engine=thanos", // the engine docs/thanos.md recommends
                "--endpoint.info-timeout=2s",
                "--log.level=info"));
        if (tlsCa != null) {
            command.addAll(List.of("--grpc-client-tls-secure", "--grpc-client-tls-ca=" + tlsCa,
                    "--grpc-client-server-name=127.0.0.1"));
        }
        for (int port : storePorts) {
            command.add("--endpoint-strict=127.0.0.1:" + port);
        }
        Files.createDirectories(logDir);
        Path log = logDir.resolve("thanos-query.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServerLauncher.ProcessHandleReaper.register(process.toHandle());
        ThanosQuerier querier = new ThanosQuerier(process, httpPort, log);
        Poll.until("the Thanos Querier is ready", Duration.ofSeconds(60), querier::ready, querier::tail);
        return querier;
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new AssertionError("thanos query exited with " + process.exitValue() + ":\n" + tail());
        }
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** An instant query at {@code timeMs} with partial responses allowed; the whole JSON answer. */
    JsonNode query(String promql, long timeMs) throws IOException {
        return json("/api/v1/query?partial_response=true&dedup=true&query=" + enc(promql) + "&time=" + seconds(timeMs));
    }

    /** {@code /api/v1/series} for one matcher over [startMs, endMs]. */
    JsonNode series(String match, long startMs, long endMs) throws IOException {
        return json("/api/v1/series?partial_response=true&dedup=true&match[]=" + enc(match) + "&start="
                + seconds(startMs) + "&end=" + seconds(endMs));
    }

    private JsonNode json(String pathAndQuery) throws IOException {
        HttpResponse<String> r = get(pathAndQuery);
        JsonNode node = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !"success".equals(node.path("status").asText())) {
            throw new IOException("Thanos Querier answered " + r.statusCode() + ": " + r.body());
        }
        return node;
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + pathAndQuery))
                .timeout(Duration.ofSeconds(60)).GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Unix seconds with milliseconds, in plain notation. */
    private static String seconds(long ms) {
        return java.math.BigDecimal.valueOf(ms, 3).toPlainString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
