package io.sluice.server.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sluice wal}: tools for write-ahead logs. */
@Command(name = "wal", mixinStandardHelpOptions = true, description = "Write-ahead log tools.",
        synopsisSubcommandLabel = "inspect")
final class WalCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.CONFIG;
    }
}
