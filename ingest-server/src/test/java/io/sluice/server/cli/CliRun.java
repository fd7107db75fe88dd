package io.sluice.server.cli;

import io.sluice.server.StopSignal;
import io.sluice.tools.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

/** Runs the command line in-process, capturing stdout and stderr. */
record CliRun(int exitCode, String out, String err) {

    static CliRun run(Map<String, String> environment, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), environment, StopSignal::manual);
        return new CliRun(code, out.toString(), err.toString());
    }

    static CliRun run(String... args) {
        return run(Map.of(), args);
    }

    List<String> errLines() {
        return err.lines().toList();
    }
}
