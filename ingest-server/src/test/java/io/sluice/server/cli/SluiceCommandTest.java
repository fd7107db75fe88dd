package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.StopSignal;
import io.sluice.tools.cli.ToolCommands;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line builds only the subcommand a start invokes, and all of them for help and errors. */
class SluiceCommandTest {
    private static CommandLine line(String... args) {
        PrintWriter sink = new PrintWriter(new StringWriter());
        return SluiceCommand.commandLine(new CliContext(sink, sink, Map.of(), StopSignal::manual), args, ToolCommands.ALL);
    }

    @Test
    void anInvokedSubcommandIsTheOnlyOneBuilt() {
        assertThat(line("serve", "--config", "x.yaml").getSubcommands()).containsOnlyKeys("serve");
        assertThat(line("bench", "replay").getSubcommands()).containsOnlyKeys("bench");
        assertThat(line("bench", "replay").getSubcommands().get("bench").getSubcommands()).containsOnlyKeys("replay", "query-data");
        assertThat(line("wal", "inspect", "d").getSubcommands().get("wal").getSubcommands()).containsOnlyKeys("inspect");
    }

    @Test
    void helpNoArgumentsAndUnknownNamesBuildEverySubcommand() {
        for (String[] args : new String[][] {{}, {"--help"}, {"--version"}, {"serv"}, {"inspect"}}) {
            assertThat(line(args).getSubcommands()).as(String.join(" ", args)).containsOnlyKeys("serve", "demo", "loadgen", "wal", "broker", "bench", "promql-test");
        }
    }

    @Test
    void anUnknownSubcommandIsAUsageErrorThatSuggestsTheRealOne() {
        CliRun run = CliRun.run("serv");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("'serv'").contains("sluice serve");
    }

    @Test
    void aSubcommandsUsageNamesItsParent() {
        CliRun run = CliRun.run("serve", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("sluice serve");
    }
}
