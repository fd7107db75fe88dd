package io.sluice.tools.cli;

import io.sluice.server.cli.GroupCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/** {@code sluice bench}: benchmarks that need a process of their own. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks run from the command line.",
        synopsisSubcommandLabel = "replay | query-data")
final class BenchCommand extends GroupCommand {
    /** True if {@code dir} does not exist or holds nothing: where a benchmark may write a fresh head. */
    static boolean isEmptyOrAbsent(Path dir) {
        if (!Files.exists(dir)) {
            return true;
        }
        try (Stream<Path> children = Files.list(dir)) {
            return children.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }
}
