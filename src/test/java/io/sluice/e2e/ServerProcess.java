package io.sluice.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One run of the server jar as a child process ({@code java -jar sluice.jar serve ...}), its stdout
 * and stderr in one log file. {@link #kill()} is SIGKILL: on Linux {@link Process#destroyForcibly()}
 * sends SIGKILL and {@link Process#destroy()} SIGTERM (ProcessHandleImpl.destroy0). Used by the test
 * thread only.
 */
final class ServerProcess {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final int httpPort;
    private final Path log;

    ServerProcess(Process process, int httpPort, Path log) {
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Polls {@code /-/ready} until it answers 200; a process that exits meanwhile fails at once, with its log. */
    void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new AssertionError("the server exited with " + process.exitValue() + " before it was ready; log "
                        + log + ":\n" + tail(40));
            }
            try {
                HttpResponse<String> r = get("/-/ready");
                if (r.statusCode() == 200) {
                    return;
                }
                last = r.statusCode() + " " + r.body().strip();
            } catch (IOException e) {
                last = e.toString();
            }
            Poll.pause();
        }
        throw new AssertionError("the server was not ready within " + timeout.toSeconds() + " s (last answer: " + last
                + "); log " + log + ":\n" + tail(40));
    }

    /** SIGKILL, then waits for the process to be gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit();
    }

    /** SIGTERM (orderly stop: commit, sync), then waits; returns the exit code. */
    int stop() {
        process.destroy();
        return awaitExit();
    }

    private int awaitExit() {
        try {
            if (!process.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("the server did not exit within " + EXIT_TIMEOUT.toSeconds() + " s; log " + log);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError("interrupted while waiting for the server to exit", e);
        }
    }

    HttpResponse<String> get(String pathAndQuery) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + pathAndQuery))
                .timeout(Duration.ofSeconds(60)).GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * The sum of a metric's samples on {@code /metrics} whose line contains {@code labelFilter} (""
     * for all), or NaN if the metric is absent.
     */
    double metric(String name, String labelFilter) throws IOException {
        HttpResponse<String> r = get("/metrics");
        double sum = Double.NaN;
        for (String line : r.body().split("\n")) {
            if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(labelFilter)) {
                double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                sum = Double.isNaN(sum) ? v : sum + v;
            }
        }
        return sum;
    }

    String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String tail(int lines) {
        String[] all = logText().split("\n");
        return String.join("\n", Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }
}
