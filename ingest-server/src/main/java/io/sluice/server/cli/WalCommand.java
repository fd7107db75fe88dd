package io.sluice.server.cli;

import picocli.CommandLine.Command;

/** {@code sluice wal}: tools for write-ahead logs. */
@Command(name = "wal", mixinStandardHelpOptions = true, description = "Write-ahead log tools.",
        synopsisSubcommandLabel = "inspect")
final class WalCommand extends GroupCommand {
}
