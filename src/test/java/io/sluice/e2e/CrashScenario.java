package io.sluice.e2e;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One end-to-end scenario: a fresh topic and consumer group on a broker, a data directory, the
 * server launcher, the known samples and their producer, and the final check that reads everything
 * back. {@link #close()} kills the server and stops the producer (tests call it from
 * {@code @AfterEach}, so a failure leaves no process behind). Test thread only.
 */
final class CrashScenario implements AutoCloseable {
    static final int SERIES = 200;
    static final int PARTITIONS = 4;
    static final int SHARDS = 2;
    static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(3);
    /** The out-of-order window of servers fed late samples: longer than 200 kill cycles' rounds. */
    static final String LATE_WINDOW = "30d";

    private final String name;
    private EmbeddedKafka kafka;              // replaced when a test restarts its broker
    private final String topic;
    private final String group;
    private final ServerLauncher launcher;
    private final int series;
    private final KnownSamples samples;
    private SampleProducer producer;

    /**
     * @param dataDir  the server's data directory (null: one under the work directory)
     * @param settings extra server configuration, {@code key=value}
     */
    CrashScenario(String name, EmbeddedKafka kafka, Path dataDir, List<String> settings) {
        this(name, kafka, dataDir, settings, SERIES);
    }

    /** As above with {@code series} known series instead of {@value #SERIES}. */
    CrashScenario(String name, EmbeddedKafka kafka, Path dataDir, List<String> settings, int series) {
        this(name, kafka, dataDir, settings, new KnownSamples(series, PARTITIONS));
    }

    /**
     * As above with the known samples {@code samples}. A set with late samples runs the server with an
     * out-of-order window longer than the set ({@value #LATE_WINDOW}), so every late sample is stored
     * however far the partitions lag each other: what the scenario checks is that each is stored once.
     */
    CrashScenario(String name, EmbeddedKafka kafka, Path dataDir, List<String> settings, KnownSamples samples) {
        this.name = name;
        this.series = samples.series();
        this.samples = samples;
        List<String> serverSettings = new ArrayList<>();
        if (samples.hasLateSamples()) {
            serverSettings.add("head.out-of-order-window=" + LATE_WINDOW);
        }
        serverSettings.addAll(settings);
        this.kafka = kafka;
        this.topic = E2eEnvironment.unique(name);
        this.group = E2eEnvironment.unique(name + "-group");
        kafka.createTopic(topic, PARTITIONS);
        Path work = E2eEnvironment.newWorkDir(name);
        this.launcher = new ServerLauncher(dataDir != null ? dataDir : work.resolve("data"), work.resolve("logs"),
                kafka.bootstrapServers(), topic, group, serverSettings);
    }

    ServerLauncher launcher() {
        return launcher;
    }

    KnownSamples samples() {
        return samples;
    }

    /** Starts producing rounds {@code firstRound..endRound-1}, one every {@code interval}. */
    SampleProducer startProducer(Duration interval, int firstRound, int endRound) {
        producer = new SampleProducer(kafka.bootstrapServers(), topic, samples, interval, firstRound, endRound);
        producer.start();
        return producer;
    }

    /** Produces rounds {@code firstRound..endRound-1} as fast as the broker takes them; returns once written. */
    void produce(int firstRound, int endRound) {
        try (SampleProducer p = new SampleProducer(kafka.bootstrapServers(), topic, samples, Duration.ZERO, firstRound,
                endRound)) {
            p.start();
            p.awaitEnd(Duration.ofMinutes(3));
        }
    }

    /** The broker was restarted (same address): admin requests go to the new instance. */
    void brokerRestarted(EmbeddedKafka restarted) {
        this.kafka = restarted;
    }

    ConsumerProgress progress() {
        return new ConsumerProgress(kafka.admin(), topic, PARTITIONS, group);
    }

    /**
     * With every round up to {@code rounds} produced: makes sure a server runs, waits until the group
     * committed the end of every partition, tallies the export against rounds {@code 0..rounds-1},
     * stops the server (SIGTERM, exit 0) and tallies its WALs replayed in this JVM as well. Prints the
     * one-line summary.
     */
    Verdict verify(int rounds, String details) throws IOException {
        ServerProcess server = launcher.current();
        if (server == null || !server.isAlive()) {
            server = launcher.startReady();
        } else {
            server.awaitReady(ServerLauncher.READY_TIMEOUT);
        }
        progress().awaitCaughtUp(CATCH_UP_TIMEOUT);
        SampleTally exported = new SampleTally(series, rounds, samples.producedBy(rounds));
        StoredSamples.export(server, exported);
        int exit = server.stop();
        if (exit != 0) {
            throw new AssertionError("the server exited with " + exit + " on SIGTERM; log:\n" + server.tail(30));
        }
        SampleTally replayed = new SampleTally(series, rounds, samples.producedBy(rounds));
        StoredSamples.replay(launcher.dataDir(), SHARDS, replayed);
        Verdict verdict = new Verdict(exported, replayed);
        summary(details + " " + verdict.summary() + " server-starts=" + launcher.starts());
        return verdict;
    }

    /** What the export showed and what the WALs hold: both must equal what was produced. */
    record Verdict(SampleTally exported, SampleTally replayed) {
        boolean isExact() {
            return exported.isExact() && replayed.isExact();
        }

        String summary() {
            return exported.summary() + " | wal-replay: stored=" + replayed.stored() + " lost=" + replayed.lost()
                    + " twice=" + replayed.twice() + " unexpected=" + replayed.unexpected();
        }
    }

    /** One line per test on stdout and in target/e2e/summary.txt. */
    void summary(String line) {
        String text = "[e2e] " + name + ": " + line;
        System.out.println(text);
        try {
            Path file = Path.of(System.getProperty("sluice.e2e.work", "target/e2e"), "summary.txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, text + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            launcher.close();
        } finally {
            if (producer != null) {
                producer.close();
            }
        }
    }
}
