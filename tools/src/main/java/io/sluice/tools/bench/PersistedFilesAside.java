package io.sluice.tools.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Moves every shard's checkpoints and chunk files out of the way for a WAL-only restart (the
 * counterpart of the Prometheus harness' {@code -drop-mmap}), and puts them back on {@link #close()}:
 * what the restart wrote into a fresh {@code chunks/} is deleted first. The restart must not
 * checkpoint (see {@code Head.skipCheckpointOnClose}), so the directory ends as it began.
 */
public final class PersistedFilesAside implements AutoCloseable {
    static final String ASIDE = ".bench-aside";
    private final List<Path> shardDirectories = new ArrayList<>();

    private PersistedFilesAside() {
    }

    /** Moves {@code shard-*}/{@code checkpoint.*} and {@code chunks/} of {@code dataDirectory} aside. */
    public static PersistedFilesAside of(Path dataDirectory) throws IOException {
        PersistedFilesAside aside = new PersistedFilesAside();
        try (Stream<Path> shards = Files.list(dataDirectory)) {
            for (Path shard : shards.filter(p -> p.getFileName().toString().startsWith("shard-")).toList()) {
                Path target = shard.resolve(ASIDE);
                Files.createDirectories(target);
                for (Path file : persisted(shard)) {
                    Files.move(file, target.resolve(file.getFileName()));
                }
                aside.shardDirectories.add(shard);
            }
        }
        return aside;
    }

    /** Deletes every shard's checkpoints and chunk files for good: the next start replays the whole WAL. */
    public static void drop(Path dataDirectory) throws IOException {
        try (Stream<Path> shards = Files.list(dataDirectory)) {
            for (Path shard : shards.filter(p -> p.getFileName().toString().startsWith("shard-")).toList()) {
                for (Path file : persisted(shard)) {
                    deleteRecursively(file);
                }
            }
        }
    }

    private static List<Path> persisted(Path shard) throws IOException {
        try (Stream<Path> files = Files.list(shard)) {
            return files.filter(p -> {
                String name = p.getFileName().toString();
                return name.startsWith("checkpoint.") || name.equals("chunks");
            }).toList();
        }
    }

    /** Deletes what the restart persisted and moves the originals back. */
    @Override
    public void close() throws IOException {
        for (Path shard : shardDirectories) {
            for (Path written : persisted(shard)) {
                deleteRecursively(written);
            }
            Path source = shard.resolve(ASIDE);
            try (Stream<Path> files = Files.list(source)) {
                for (Path file : files.toList()) {
                    Files.move(file, shard.resolve(file.getFileName()));
                }
            }
            Files.delete(source);
        }
    }

    private static void deleteRecursively(Path path) throws IOException {
        try (Stream<Path> all = Files.walk(path)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
