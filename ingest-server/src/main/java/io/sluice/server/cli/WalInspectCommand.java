package io.sluice.server.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice wal inspect DIR}: what a WAL holds, read-only; exit 1 if any WAL is damaged. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Prints segments, records by type, positions, the first corruption and the Kafka offset "
                + "watermarks of a WAL directory, or of every shard-*/wal under a data directory.",
                "Reads without repairing or locking. Exit code 1 if any WAL is damaged."})
final class WalInspectCommand implements Callable<Integer> {
    private static final Pattern SHARD_DIR = Pattern.compile("shard-(\\d+)");

    private final CliContext context;

    @Parameters(paramLabel = "DIR", description = "A WAL directory, or a data directory (data.dir) holding shard-*/wal.")
    Path directory;

    WalInspectCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (!Files.isDirectory(directory)) {
            context.error("wal inspect: " + directory + " is not a directory");
            return ExitCodes.CONFIG;
        }
        boolean clean = true;
        try {
            for (Path wal : walDirectories(directory)) {
                WalReport report = WalReport.of(wal);
                context.out().print(report.format());
                clean &= report.isClean();
            }
        } catch (IOException | UncheckedIOException e) {
            context.error("wal inspect: cannot read " + directory + ": " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        context.out().flush();
        return clean ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    /** The shard WALs under a data directory, by shard number; or {@code dir} itself when it has none. */
    static List<Path> walDirectories(Path dir) throws IOException {
        List<Path> shards = new ArrayList<>();
        try (Stream<Path> children = Files.list(dir)) {
            children.filter(p -> SHARD_DIR.matcher(p.getFileName().toString()).matches())
                    .filter(p -> Files.isDirectory(p.resolve("wal")))
                    .sorted(Comparator.comparingInt(WalInspectCommand::shardNumber))
                    .forEach(p -> shards.add(p.resolve("wal")));
        }
        return shards.isEmpty() ? List.of(dir) : shards;
    }

    private static int shardNumber(Path shardDir) {
        Matcher m = SHARD_DIR.matcher(shardDir.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    }
}
