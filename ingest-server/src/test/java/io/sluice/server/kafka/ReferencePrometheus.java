package io.sluice.server.kafka;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
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
 * The reference Prometheus v3 binaries (prometheus, promtool), built from the Go module proxy by
 * {@code promql/src/test/oracle/build.sh} into a cache outside the repository, and a Prometheus server
 * run from them over a TSDB made by {@code promtool tsdb create-blocks-from openmetrics}. Without a Go
 * toolchain (and no binaries in the cache) the build script's one line fails the test: never a skip.
 */
public final class ReferencePrometheus implements AutoCloseable {
    private static Path binaries;

    final int port;
    private final Process process;

    private ReferencePrometheus(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** The directory holding {@code prometheus} and {@code promtool}, building them on first use. */
    public static synchronized Path binaries() {
        if (binaries == null) {
            Path script = Path.of("..", "promql", "src", "test", "oracle", "build.sh").toAbsolutePath().normalize();
            Result r = run(List.of("bash", script.toString()), Duration.ofMinutes(40));
            if (r.exit != 0) {
                String[] lines = r.stderr.strip().split("\n");
                throw new AssertionError("the reference Prometheus could not be built (" + script + "): " + lines[lines.length - 1]);
            }
            String[] lines = r.stdout.strip().split("\n");
            binaries = Path.of(lines[lines.length - 1]);
        }
        return binaries;
    }

    /** Imports {@code openMetrics} into a new TSDB under {@code dir} and starts Prometheus on it (loopback, a free port). */
    static ReferencePrometheus start(Path dir, String openMetrics) throws IOException, InterruptedException {
        Path input = dir.resolve("data.om");
        Files.writeString(input, openMetrics);
        Path tsdb = dir.resolve("tsdb");
        Result imported = run(List.of(binaries().resolve("promtool").toString(), "tsdb", "create-blocks-from", "openmetrics",
                input.toString(), tsdb.toString()), Duration.ofMinutes(5));
        if (imported.exit != 0) {
            throw new AssertionError("promtool tsdb create-blocks-from openmetrics failed: " + imported.stderr + imported.stdout);
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, "global: {}\n");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process p = new ProcessBuilder(binaries().resolve("prometheus").toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + tsdb, "--web.listen-address=127.0.0.1:" + port,
                "--storage.tsdb.retention.time=100y", "--query.lookback-delta=5m",
                "--enable-feature=promql-experimental-functions")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        ReferencePrometheus prometheus = new ReferencePrometheus(port, p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (HttpClient client = HttpClient.newHttpClient()) {
            while (true) {
                try {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(prometheus.url() + "/-/ready")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        return prometheus;
                    }
                } catch (IOException notYet) {
                    // starting
                }
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    prometheus.close();
                    throw new AssertionError("Prometheus did not become ready: " + Files.readString(dir.resolve("prometheus.log")));
                }
                Thread.sleep(100);
            }
        }
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Runs {@code promtool} with {@code args}; its stdout (fails on a non-zero exit). */
    static String promtool(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(binaries().resolve("promtool").toString());
        command.addAll(args);
        Result r = run(command, Duration.ofMinutes(1));
        if (r.exit != 0) {
            throw new AssertionError("promtool " + args + " exited " + r.exit + ": " + r.stderr + r.stdout);
        }
        return r.stdout;
    }

    record Result(int exit, String stdout, String stderr) {
    }

    static Result run(List<String> command, Duration timeout) {
        try {
            Path out = Files.createTempFile("sluice-ref", ".out");
            Path err = Files.createTempFile("sluice-ref", ".err");
            try {
                Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(command + " did not finish within " + timeout);
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
