package io.sluice.tools.cli;

import io.sluice.server.StopSignal;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    @Option(names = "--topic", paramLabel = "NAME[:PARTITIONS]", converter = TopicConverter.class,
            description = "A topic to create (default 1 partition); repeatable.")
    List<TopicSpec> topics = new ArrayList<>();

    BrokerCommand(CliContext context) {
        this.context = context;
    }

    /** A topic to create: its name and partition count (at least 1). */
    record TopicSpec(String name, int partitions) {
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
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
            kafka = EmbeddedKafka.start(work);
        } catch (IOException | RuntimeException e) { // e.g. a directory formatted by another broker
            context.error("broker: cannot start: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        try (kafka) {
            context.out().println("Kafka broker data in " + work + (dir == null ? " (deleted on exit)" : ""));
            for (TopicSpec topic : topics) {
                kafka.createTopic(topic.name(), topic.partitions());
                context.out().println("topic " + topic.name() + ": " + topic.partitions() + " partition(s)");
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

    /** Picocli converter: {@code name} or {@code name:partitions}. */
    static final class TopicConverter implements ITypeConverter<TopicSpec> {
        @Override
        public TopicSpec convert(String value) {
            int colon = value.lastIndexOf(':');
            String name = colon < 0 ? value : value.substring(0, colon);
            int partitions = 1;
            if (colon >= 0) {
                try {
                    partitions = Integer.parseInt(value.substring(colon + 1));
                } catch (NumberFormatException e) {
                    partitions = 0;
                }
            }
            if (name.isEmpty() || partitions < 1) {
                throw new TypeConversionException("'" + value + "' is not NAME or NAME:PARTITIONS with PARTITIONS >= 1");
            }
            return new TopicSpec(name, partitions);
        }
    }
}
