package io.sluice.tools;

import io.sluice.server.StopSignal;
import io.sluice.tools.cli.ToolCommands;
import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Supplier;

/** The entry point of {@code ./sluice} and of its jar: {@code sluice serve|demo|loadgen|wal inspect|broker|bench}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        io.sluice.server.cli.Main.main(args, ToolCommands.ALL);
    }

    /**
     * Runs one command and returns its exit code (0 ok, 1 failure, 2 usage or configuration error).
     * Tests call this in-process with their own streams, environment and stop signal.
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> environment,
                          Supplier<StopSignal> stopSignal) {
        return io.sluice.server.cli.Main.run(args, out, err, environment, stopSignal, ToolCommands.ALL);
    }
}
