package io.sluice.server.cli;

import io.sluice.server.StopSignal;
import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What commands get from outside, so tests run them in-process: output streams, the environment
 * (for {@code SLUICE_*} settings) and what stops a long-running command.
 *
 * @param stopSignal called once by serve and demo; in production it installs the SIGTERM/SIGINT handlers
 */
public record CliContext(PrintWriter out, PrintWriter err, Map<String, String> environment,
                         Supplier<StopSignal> stopSignal) {

    /** A one-line error on stderr, as every command reports what stops it. */
    public void error(String message) {
        err.println("sluice: " + message);
        err.flush();
    }
}
