package io.sluice.tools.cli;

import io.sluice.server.cli.SluiceCommand;
import io.sluice.server.cli.SluiceCommand.Subcommand;
import java.util.List;
import picocli.CommandLine;

/**
 * Every subcommand of the {@code ./sluice} jar: the service's (serve, wal) and the tools'. Lambdas, not
 * constructor references: linking a reference loads its class, and {@code sluice serve} loads none of these.
 */
public final class ToolCommands {
    /** {@code sluice demo}. */
    public static final Subcommand DEMO = new Subcommand("demo", context -> new DemoCommand(context));
    /** {@code sluice loadgen}. */
    public static final Subcommand LOADGEN = new Subcommand("loadgen", context -> new LoadgenCommand(context));
    /** {@code sluice broker}. */
    public static final Subcommand BROKER = new Subcommand("broker", context -> new BrokerCommand(context));
    /** {@code sluice bench replay | query-data}. */
    public static final Subcommand BENCH = new Subcommand("bench",
            context -> new CommandLine(new BenchCommand()).addSubcommand("replay", new BenchReplayCommand(context))
                    .addSubcommand("query-data", new BenchQueryDataCommand(context)));

    /** {@code sluice promql-test}. */
    public static final Subcommand PROMQL_TEST = new Subcommand("promql-test", context -> new PromqlTestCommand(context));

    /** In the order the synopsis lists them. */
    public static final List<Subcommand> ALL = List.of(SluiceCommand.SERVE, DEMO, LOADGEN, SluiceCommand.WAL, BROKER, BENCH, PROMQL_TEST);

    private ToolCommands() {
    }
}
