package io.sluice.tools.cli;

import io.sluice.server.Ingest;
import io.sluice.server.KafkaIngestStarter;
import io.sluice.server.SluiceServer;
import io.sluice.server.StopSignal;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.ConfigValues;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Unmatched;

/**
 * {@code sluice demo}: an embedded single-node Kafka broker (KRaft, in this process), a generator of
 * node-exporter-like metrics and the service, with a progress line every second. Everything lives in
 * a temporary directory that is deleted on exit.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs an embedded Kafka broker, a metrics generator and the service in one process and "
                + "prints progress every second. Ctrl-C stops it cleanly.",
                "Any --key=value setting of `sluice serve` applies too (e.g. --http.port=0, --head.shards=2)."})
final class DemoCommand implements Callable<Integer> {
    static final String TOPIC = "node-metrics";
    private static final Logger LOG = LoggerFactory.getLogger(DemoCommand.class);

    private final CliContext context;

    @Option(names = "--series", defaultValue = "10000", paramLabel = "N", description = "Distinct series (default ${DEFAULT-VALUE}).")
    int series;

    @Option(names = "--rate", defaultValue = "50000", paramLabel = "R",
            description = "Samples per second the generator produces (default ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", paramLabel = "D", converter = DurationConverter.class,
            description = "Stop after this long (e.g. 30s, 5m); default: run until Ctrl-C.")
    Duration duration;

    @Option(names = "--format", defaultValue = "sluice", paramLabel = "F", converter = LoadgenCommand.FormatConverter.class,
            description = "Payload format: sluice (default), prometheus-remote-write, prometheus-remote-write-v2, influx, otlp or json.")
    PayloadFormat format;

    @Option(names = "--partitions", defaultValue = "4", paramLabel = "P", description = "Partitions of the demo topic.")
    int partitions;

    @Unmatched
    List<String> overrides = new ArrayList<>();

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (series < 1 || rate <= 0 || partitions < 1) {
            context.error("demo: --series, --rate and --partitions must be positive");
            return ExitCodes.CONFIG;
        }
        StopSignal stop = context.stopSignal().get();
        Path work = Files.createTempDirectory("sluice-demo-");
        try {
            return run(work, stop);
        } finally {
            deleteRecursively(work);
        }
    }

    private int run(Path work, StopSignal stop) throws IOException, InterruptedException {
        context.out().println("Starting an embedded Kafka broker in " + work + " ...");
        context.out().flush();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(work.resolve("kafka"))) {
            kafka.createTopic(TOPIC, partitions);
            SluiceConfig config;
            Ingest.Starter ingest;
            try {
                config = ConfigLoader.load(presets(work, kafka.bootstrapServers()), null, context.environment(), overrides);
                ingest = new KafkaIngestStarter(config);
            } catch (ConfigException e) {
                context.error(e.getMessage());
                return ExitCodes.CONFIG;
            }
            SluiceServer server;
            try {
                server = SluiceServer.start(config, ingest);
            } catch (IOException e) { // e.g. the port is taken: say so in one line
                context.error("demo: cannot start: " + e.getMessage() + " (--http.port=0 picks a free port)");
                return ExitCodes.FAILURE;
            }
            try (server) {
                Thread generator = startGenerator(kafka.bootstrapServers());
                try {
                    report(server, stop);
                } finally {
                    generator.interrupt();
                    generator.join(5_000);
                }
            }
        }
        context.out().println("Demo stopped cleanly.");
        context.out().flush();
        return ExitCodes.OK;
    }

    /** The demo's settings; the user's flags and SLUICE_* variables still override them. */
    private Map<String, String> presets(Path work, String bootstrapServers) {
        return Map.of(
                "data.dir", work.resolve("data").toString(),
                "http.host", "127.0.0.1",
                "kafka.bootstrap-servers", bootstrapServers,
                "kafka.topics", TOPIC + "=" + format.configName(),
                "kafka.group-id", "sluice-demo",
                "wal.segment-size", "32MiB");
    }

    /**
     * The generator: paced at --rate, with scrapes spaced so that sample timestamps follow the wall
     * clock (series / rate seconds apart), as a fleet of node exporters scraped that often would.
     * Without --duration it runs for a day's worth of samples or until the demo stops.
     */
    private Thread startGenerator(String bootstrapServers) {
        long seconds = duration == null ? 86_400 : Math.max(1, duration.toSeconds() + 1);
        long samples = Math.max(series, (long) (rate * seconds));
        long scrapeIntervalMs = Math.max(1, Math.round(1000.0 * series / rate));
        LoadgenConfig config = LoadgenConfig.of(bootstrapServers, TOPIC, format, series, samples).withRate(rate)
                .withTime(System.currentTimeMillis(), scrapeIntervalMs);
        return Thread.ofPlatform().name("sluice-demo-generator").daemon().start(() -> {
            try {
                Loadgen.run(config);
            } catch (RuntimeException e) {
                if (!Thread.currentThread().isInterrupted()) {
                    LOG.error("the demo's generator stopped", e);
                }
            }
        });
    }

    /** Prints the address, then a progress line every second until stopped or the duration ends. */
    private void report(SluiceServer server, StopSignal stop) throws InterruptedException {
        String http = "http://" + server.httpAddress().getHostString() + ":" + server.httpAddress().getPort();
        context.out().println("Sluice demo: " + series + " series at " + (long) rate + " samples/s into topic " + TOPIC
                + " (" + format.configName() + ")");
        context.out().println("HTTP: " + http + "/metrics  " + http + "/-/ready   (Ctrl-C stops)");
        context.out().flush();
        long start = System.nanoTime();
        long end = duration == null ? Long.MAX_VALUE : start + duration.toNanos();
        DemoProgress progress = new DemoProgress(server.head(), server.registry(), start);
        while (!stop.await(1_000) && System.nanoTime() < end) {
            context.out().println(progress.line(System.nanoTime()));
            context.out().flush();
        }
    }

    /** Deletes {@code dir} and everything in it; a failure is logged, not thrown (also used by {@code broker}). */
    static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("could not delete the demo directory {}: {}", dir, e.getMessage());
        }
    }

    /** Picocli converter for durations like 30s, 5m, 1h, 1500ms. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Long ms = ConfigValues.parseDurationMs(value);
            if (ms == null || ms <= 0) {
                throw new TypeConversionException("'" + value + "' is not a duration like 30s, 5m or 1h");
            }
            return Duration.ofMillis(ms);
        }
    }
}
