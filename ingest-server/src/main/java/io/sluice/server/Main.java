package io.sluice.server;

import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.SluiceCommand;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Supplier;

/** The entry point of {@code ./sluice} and of the server jar: {@code sluice serve|demo|loadgen|wal inspect}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = run(args, out, err, System.getenv(), StopSignal::onTermOrInt);
        out.flush();
        err.flush();
        System.exit(code); // Kafka and Netty threads must not keep the JVM alive after an orderly stop
    }

    /**
     * Runs one command and returns its exit code (0 ok, 1 failure, 2 usage or configuration error).
     * Tests call this in-process with their own streams, environment and stop signal.
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> environment,
                          Supplier<StopSignal> stopSignal) {
        return SluiceCommand.commandLine(new CliContext(out, err, environment, stopSignal), args).execute(args);
    }
}
