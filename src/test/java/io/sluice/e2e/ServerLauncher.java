package io.sluice.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts the server jar again and again on one data directory, one process at a time, each run
 * logging to its own file under {@code logs/}. {@link #close()} kills a process still running, so a
 * failing test leaves none behind (tests call it from {@code @AfterEach}); a JVM shutdown hook is the
 * backstop. Used by the test thread only.
 *
 * <p>The servers join the consumer group with static membership ({@code kafka.group-instance-id}):
 * after a SIGKILL the next process takes over the same member at once instead of waiting for the
 * dead one's session to expire.
 */
final class ServerLauncher implements AutoCloseable {
    static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    private final Path dataDir;
    private final Path logDir;
    private final List<String> settings;
    private final List<Path> logs = new ArrayList<>();
    private ServerProcess current;

    /**
     * @param settings {@code key=value} configuration on top of the defaults below (later wins)
     */
    ServerLauncher(Path dataDir, Path logDir, String bootstrapServers, String topic, String group, List<String> settings) {
        this.dataDir = dataDir;
        this.logDir = logDir;
        List<String> all = new ArrayList<>(List.of(
                "data.dir=" + dataDir,
                "kafka.bootstrap-servers=" + bootstrapServers,
                "kafka.topics=" + topic + "=sluice",
                "kafka.group-id=" + group,
                "kafka.group-instance-id=" + group + "-member",
                "kafka.commit-interval=200ms",
                "head.shards=2",
                "wal.segment-size=64KiB",
                "http.host=127.0.0.1"));
        all.addAll(settings);
        this.settings = List.copyOf(all);
    }

    Path dataDir() {
        return dataDir;
    }

    /** Runs of the server so far. */
    int starts() {
        return logs.size();
    }

    /** Starts a server process (none may be running) and returns at once; see {@link ServerProcess#awaitReady}. */
    ServerProcess start() {
        if (current != null && current.isAlive()) {
            throw new IllegalStateException("a server (pid " + current.pid() + ") is still running");
        }
        int port = E2eEnvironment.freePort();
        List<String> command = new ArrayList<>(E2eEnvironment.javaCommand());
        command.addAll(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of("-jar", E2eEnvironment.serverJar().toString(), "serve"));
        for (String s : settings) {
            command.add("--" + s);
        }
        command.add("--http.port=" + port);
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(String.format("server-%03d.log", logs.size()));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            logs.add(log);
            current = new ServerProcess(process, port, log);
            ProcessHandleReaper.register(process.toHandle());
            return current;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Starts a server and waits until it is ready. */
    ServerProcess startReady() {
        ServerProcess server = start();
        server.awaitReady(READY_TIMEOUT);
        return server;
    }

    /** The running (or last) server process, or null. */
    ServerProcess current() {
        return current;
    }

    /** Every run's log, in order, for assertions on what the server reported. */
    String allLogs() {
        StringBuilder out = new StringBuilder();
        for (Path log : logs) {
            try {
                out.append(Files.readString(log, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.toString();
    }

    /** Kills the running server, if any (SIGKILL: the state after a test is not worth an orderly stop). */
    @Override
    public void close() {
        if (current != null && current.isAlive()) {
            current.kill();
        }
    }

    /** Kills server processes a test JVM ending abnormally would leave behind. */
    static final class ProcessHandleReaper {
        private static final List<ProcessHandle> LIVE = new ArrayList<>(); // guarded by LIVE

        static {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
                synchronized (LIVE) {
                    for (ProcessHandle h : LIVE) {
                        h.destroyForcibly();
                    }
                }
            }));
        }

        private ProcessHandleReaper() {
        }

        static void register(ProcessHandle handle) {
            synchronized (LIVE) {
                LIVE.removeIf(h -> !h.isAlive());
                LIVE.add(handle);
            }
        }
    }
}
