package io.sluice.tools.cli;

import io.sluice.server.cli.GroupCommand;
import picocli.CommandLine.Command;

/** {@code sluice bench}: benchmarks that need a process of their own. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks run from the command line.",
        synopsisSubcommandLabel = "replay | query-data")
final class BenchCommand extends GroupCommand {
}
