package io.sluice.server.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice}: the top command; it only holds the subcommands. */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = SluiceCommand.Version.class,
        description = "Ingests metric samples from Kafka into an in-memory head of XOR chunks in front of a WAL.",
        synopsisSubcommandLabel = "(serve | demo | loadgen | wal | broker)")
public final class SluiceCommand extends GroupCommand {
    /** The command line with every subcommand, its output and error streams set from {@code context}. */
    public static CommandLine commandLine(CliContext context) {
        CommandLine wal = new CommandLine(new WalCommand())
                .addSubcommand("inspect", new WalInspectCommand(context));
        CommandLine line = new CommandLine(new SluiceCommand())
                .addSubcommand("serve", new ServeCommand(context))
                .addSubcommand("demo", new DemoCommand(context))
                .addSubcommand("loadgen", new LoadgenCommand(context))
                .addSubcommand("wal", wal)
                .addSubcommand("broker", new BrokerCommand(context));
        line.setOut(context.out());
        line.setErr(context.err());
        return line;
    }

    /** {@code sluice --version}: the jar's implementation version when packaged. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SluiceCommand.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (version == null ? "(development build)" : version)};
        }
    }
}
