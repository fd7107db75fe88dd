package io.sluice.server.cli;

import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code sluice}: the top command; it only holds the subcommands. */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = SluiceCommand.Version.class,
        description = "Ingests metric samples from Kafka into an in-memory head of XOR chunks in front of a WAL.",
        synopsisSubcommandLabel = "(serve | demo | loadgen | wal | broker | bench | promql-test)")
public final class SluiceCommand extends GroupCommand {
    /** The command line with every subcommand, its output and error streams set from {@code context}. */
    public static CommandLine commandLine(CliContext context) {
        return commandLine(context, new String[0]);
    }

    /**
     * The command line for {@code args}: when {@code args[0]} names a subcommand, only that one is
     * built, else all of them (top-level help, usage, an unknown name). Why: picocli builds a
     * command's model by reflection over its options, and loads the classes its fields name; building
     * all of them cost ~0.3 CPU-s and up to 0.8 s of every start, a restart included, for five commands
     * that do not run.
     */
    public static CommandLine commandLine(CliContext context, String[] args) {
        String invoked = args.length > 0 ? args[0] : "";
        boolean all = !SUBCOMMANDS.contains(invoked);
        CommandLine line = new CommandLine(new SluiceCommand());
        if (all || invoked.equals("serve")) {
            line.addSubcommand("serve", new ServeCommand(context));
        }
        if (all || invoked.equals("demo")) {
            line.addSubcommand("demo", new DemoCommand(context));
        }
        if (all || invoked.equals("loadgen")) {
            line.addSubcommand("loadgen", new LoadgenCommand(context));
        }
        if (all || invoked.equals("wal")) {
            line.addSubcommand("wal", new CommandLine(new WalCommand()).addSubcommand("inspect", new WalInspectCommand(context)));
        }
        if (all || invoked.equals("broker")) {
            line.addSubcommand("broker", new BrokerCommand(context));
        }
        if (all || invoked.equals("promql-test")) {
            line.addSubcommand("promql-test", new PromqlTestCommand(context));
        }
        if (all || invoked.equals("bench")) {
            line.addSubcommand("bench", new CommandLine(new BenchCommand()).addSubcommand("replay", new BenchReplayCommand(context))
                    .addSubcommand("query-data", new BenchQueryDataCommand(context)));
        }
        line.setOut(context.out());
        line.setErr(context.err());
        return line;
    }

    /** The subcommands' names, as the synopsis lists them. */
    static final Set<String> SUBCOMMANDS = Set.of("serve", "demo", "loadgen", "wal", "broker", "bench", "promql-test");

    /** {@code sluice --version}: the jar's implementation version when packaged. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SluiceCommand.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (version == null ? "(development build)" : version)};
        }
    }
}
