package io.sluice.server.cli;

import io.sluice.server.StopSignal;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The entry point of the service alone ({@code sluice serve|wal inspect}), and the one the tools module's
 * {@code io.sluice.tools.Main} (the {@code ./sluice} jar) runs with its subcommands added.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        main(args, SluiceCommand.SERVICE);
    }

    /** Runs {@code args} against {@code subcommands} with the process's streams and signals, then exits. */
    public static void main(String[] args, List<SluiceCommand.Subcommand> subcommands) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = run(args, out, err, System.getenv(), StopSignal::onTermOrInt, subcommands);
        out.flush();
        err.flush();
        System.exit(code); // Kafka and Netty threads must not keep the JVM alive after an orderly stop
    }

    /**
     * Runs one command and returns its exit code (0 ok, 1 failure, 2 usage or configuration error).
     * Tests call this in-process with their own streams, environment and stop signal.
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> environment,
                          Supplier<StopSignal> stopSignal, List<SluiceCommand.Subcommand> subcommands) {
        return SluiceCommand.commandLine(new CliContext(out, err, environment, stopSignal), args, subcommands).execute(args);
    }
}
