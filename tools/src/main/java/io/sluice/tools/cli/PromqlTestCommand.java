package io.sluice.tools.cli;

import io.sluice.promql.script.EngineScriptEngine;
import io.sluice.promql.script.PromqlTestMain;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice promql-test FILE...}: runs PromQL test scripts (Prometheus' promqltest language) through
 * Sluice's engine; prints each failing eval and a final {@code N passed, N failed, N unsupported}.
 */
@Command(name = "promql-test", mixinStandardHelpOptions = true,
        description = {"Runs PromQL test scripts (the promqltest language: load, clear, eval instant|range, expect ...) "
                + "through Sluice's PromQL engine.",
                "Prints each failing eval and a final 'N passed, N failed, N unsupported' line; exit code 1 if any failed."})
final class PromqlTestCommand implements Callable<Integer> {
    private final CliContext context;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "Script files (.test).")
    List<Path> files;

    @Option(names = "--show-unsupported", description = "Also list each eval not run (native histograms) and why.")
    boolean showUnsupported;

    PromqlTestCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        for (Path f : files) {
            if (!Files.isRegularFile(f)) {
                context.error("promql-test: " + f + " is not a file");
                return ExitCodes.CONFIG;
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code = PromqlTestMain.run(files, new EngineScriptEngine(), out, showUnsupported);
        }
        context.out().print(bytes.toString(StandardCharsets.UTF_8));
        context.out().flush();
        return code == 0 ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}
