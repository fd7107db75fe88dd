package io.sluice.server.cli;

import io.sluice.server.Ingest;
import io.sluice.server.KafkaIngestStarter;
import io.sluice.server.SluiceServer;
import io.sluice.server.StopSignal;
import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.kafka.BrokerCheck;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** {@code sluice serve}: the service, until SIGTERM or SIGINT. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Consumes the configured Kafka topics into the head until SIGTERM or SIGINT, then stops "
                + "gracefully (commit, drain, sync) and exits 0. SIGHUP reloads http.web-config-file.",
                "Configuration: the YAML file, then SLUICE_* environment variables (http.port -> SLUICE_HTTP_PORT), "
                        + "then --key=value flags (e.g. --http.port=9095). Keys: see README.md."},
        parameterListHeading = "%nSettings:%n")
final class ServeCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file.")
    Path configFile;

    @Unmatched
    List<String> overrides = new ArrayList<>();

    ServeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        SluiceConfig config;
        Ingest.Starter ingest;
        try {
            config = ConfigLoader.load(configFile, context.environment(), overrides);
            BrokerCheck.check(config.kafka(), BrokerCheck.DEFAULT_TIMEOUT_MS);
            ingest = new KafkaIngestStarter(config);
        } catch (ConfigException e) {
            context.error(e.getMessage());
            return ExitCodes.CONFIG;
        }
        StopSignal stop = context.stopSignal().get();
        SluiceServer server;
        try {
            server = SluiceServer.start(config, ingest);
        } catch (IOException e) {
            context.error("cannot start: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        stop.onHangup(() -> server.reloadWebConfig("SIGHUP"));
        // SIGTERM/SIGINT come through the stop signal, SIGHUP reloads; a hook still closes the server on any
        // other way out of the JVM (System.exit elsewhere), so the WALs are synced and offsets committed.
        Thread hook = new Thread(server::close, "sluice-shutdown-hook");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stop.await();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook runs (or ran) close(); close() is idempotent
            }
            server.close();
        }
        return ExitCodes.OK;
    }
}
