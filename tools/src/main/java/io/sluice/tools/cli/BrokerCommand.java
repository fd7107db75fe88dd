package io.sluice.tools.cli;

import io.sluice.server.StopSignal;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code sluice broker}: the embedded single-node Kafka broker of {@code sluice demo} on its own, until
 * SIGTERM or SIGINT, for trying the service or an image without installing Kafka (docker/build-local.sh
 * runs the container against it). Development only: one replica, plaintext, loopback listeners.
 *
 * <p>Prints {@code bootstrap-servers: 127.0.0.1:PORT} once the broker serves and its topics have leaders,
 * so a script can wait for that line and read the address from it.
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = {"Runs a single-node Kafka broker (KRaft, in this process, listening on 127.0.0.1 only) until "
                + "SIGTERM or SIGINT. For development and smoke tests, not for production.",
                "Prints 'bootstrap-servers: 127.0.0.1:PORT' once it serves and the topics exist."})
final class BrokerCommand implements Callable<Integer> {
    static final String READY_PREFIX = "bootstrap-servers: ";

    private final CliContext context;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Keep the broker's data here (reused on the next start); default: a temporary directory deleted on exit.")
    Path dir;

    @Option(names = "--topic", paramLabel = "NAME[:PARTITIONS[:KEY=VALUE,...]]", converter = TopicConverter.class,
            description = {"A topic to create (default 1 partition), with topic configuration if given, e.g. "
                    + "'metrics:4:max.message.bytes=10485760,retention.ms=3600000'; repeatable.",
                    "An existing topic (--dir) is kept as it is."})
    List<TopicSpec> topics = new ArrayList<>();

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Port of the broker's listener on 127.0.0.1 (default: a free one, printed at start).")
    int port;

    @Option(names = "--config", paramLabel = "KEY=VALUE", converter = BrokerPropertyConverter.class,
            description = {"A broker property, e.g. 'message.max.bytes=10485760' (the largest record batch the broker "
                    + "takes, default 1 MiB) or 'log.retention.ms=3600000'; repeatable.",
                    "Listeners, roles, node id and log directories are the command's own."})
    List<Map.Entry<String, String>> config = new ArrayList<>();

    BrokerCommand(CliContext context) {
        this.context = context;
    }

    /** A topic to create: its name, partition count (at least 1) and topic configuration. */
    record TopicSpec(String name, int partitions, Map<String, String> configs) {
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (port < 0 || port > 65_535) {
            context.error("broker: --port " + port + " is not 0..65535");
            return ExitCodes.CONFIG;
        }
        StopSignal stop = context.stopSignal().get();
        Path work = dir != null ? dir : Files.createTempDirectory("sluice-broker-");
        try {
            return serve(work, stop);
        } finally {
            if (dir == null) {
                DemoCommand.deleteRecursively(work);
            }
        }
    }

    private int serve(Path work, StopSignal stop) throws InterruptedException {
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(work, port, 0, brokerProperties());
        } catch (IOException | RuntimeException e) { // e.g. a directory formatted by another broker, a bad property
            context.error("broker: cannot start: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        try (kafka) {
            context.out().println("Kafka broker data in " + work + (dir == null ? " (deleted on exit)" : ""));
            for (TopicSpec topic : topics) {
                kafka.createTopic(topic.name(), topic.partitions(), topic.configs());
                context.out().println("topic " + topic.name() + ": " + topic.partitions() + " partition(s)"
                        + (topic.configs().isEmpty() ? "" : ", " + topic.configs()));
            }
            context.out().println(READY_PREFIX + kafka.bootstrapServers());
            context.out().flush();
            stop.await();
        } catch (IllegalStateException e) { // a topic could not be created
            context.error("broker: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        context.out().println("Broker stopped.");
        context.out().flush();
        return ExitCodes.OK;
    }

    private Map<String, String> brokerProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        config.forEach(e -> properties.put(e.getKey(), e.getValue()));
        return properties;
    }

    /** Picocli converter: {@code name}, {@code name:partitions} or {@code name:partitions:key=value,...}. */
    static final class TopicConverter implements ITypeConverter<TopicSpec> {
        @Override
        public TopicSpec convert(String value) {
            String[] parts = value.split(":", 3); // a topic name has no ':'
            String name = parts[0];
            int partitions = 1;
            if (parts.length > 1) {
                try {
                    partitions = Integer.parseInt(parts[1]);
                } catch (NumberFormatException e) {
                    partitions = 0;
                }
            }
            if (name.isEmpty() || partitions < 1) {
                throw new TypeConversionException("'" + value + "' is not NAME or NAME:PARTITIONS with PARTITIONS >= 1");
            }
            Map<String, String> configs = new LinkedHashMap<>();
            if (parts.length > 2) {
                for (String entry : parts[2].split(",", -1)) {
                    Map.Entry<String, String> kv = keyValue(entry);
                    if (kv == null) {
                        throw new TypeConversionException("'" + value + "': '" + entry
                                + "' is not KEY=VALUE (NAME:PARTITIONS:KEY=VALUE,...)");
                    }
                    configs.put(kv.getKey(), kv.getValue());
                }
            }
            return new TopicSpec(name, partitions, Map.copyOf(configs));
        }
    }

    /** Picocli converter: {@code key=value}, not one of the embedded broker's own properties. */
    static final class BrokerPropertyConverter implements ITypeConverter<Map.Entry<String, String>> {
        @Override
        public Map.Entry<String, String> convert(String value) {
            Map.Entry<String, String> kv = keyValue(value);
            if (kv == null) {
                throw new TypeConversionException("'" + value + "' is not KEY=VALUE");
            }
            if (EmbeddedKafka.MANAGED_PROPERTIES.contains(kv.getKey())) {
                throw new TypeConversionException("'" + kv.getKey() + "' is set by the broker command itself");
            }
            return kv;
        }
    }

    /** {@code key=value} with a non-empty key, else null. */
    private static Map.Entry<String, String> keyValue(String text) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            return null;
        }
        return Map.entry(text.substring(0, eq).strip(), text.substring(eq + 1).strip());
    }
}
