package io.sluice.server.cli;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code sluice}: the top command; it only holds the subcommands. This module brings the service's
 * own ({@link #SERVICE}: serve, wal); the tools module adds demo, loadgen, broker and bench to the
 * same top command in the {@code ./sluice} jar.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = SluiceCommand.Version.class,
        description = "Ingests metric samples from Kafka into an in-memory head of XOR chunks in front of a WAL.")
public final class SluiceCommand extends GroupCommand {
    /** One subcommand: its name and how to build it for a context (only when it may run). */
    public record Subcommand(String name, Function<CliContext, Object> build) {
    }

    /** {@code sluice serve}. */
    public static final Subcommand SERVE = new Subcommand("serve", ServeCommand::new);
    /** {@code sluice wal inspect}. */
    public static final Subcommand WAL = new Subcommand("wal",
            context -> new CommandLine(new WalCommand()).addSubcommand("inspect", new WalInspectCommand(context)));
    /** The service's own subcommands. */
    public static final List<Subcommand> SERVICE = List.of(SERVE, WAL);

    /**
     * The command line for {@code args}: when {@code args[0]} names one of {@code subcommands}, only
     * that one is built, else all of them (top-level help, usage, an unknown name). Why: picocli builds
     * a command's model by reflection over its options, and loads the classes its fields name; building
     * all six cost ~0.3 CPU-s and up to 0.8 s of every start, a restart included, for five commands
     * that do not run. Output and error streams are set from {@code context}.
     */
    public static CommandLine commandLine(CliContext context, String[] args, List<Subcommand> subcommands) {
        String invoked = args.length > 0 ? args[0] : "";
        boolean all = subcommands.stream().noneMatch(s -> s.name().equals(invoked));
        CommandLine line = new CommandLine(new SluiceCommand());
        for (Subcommand subcommand : subcommands) {
            if (all || invoked.equals(subcommand.name())) {
                line.addSubcommand(subcommand.name(), subcommand.build().apply(context));
            }
        }
        line.getCommandSpec().usageMessage().synopsisSubcommandLabel(
                subcommands.stream().map(Subcommand::name).collect(Collectors.joining(" | ", "(", ")")));
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
