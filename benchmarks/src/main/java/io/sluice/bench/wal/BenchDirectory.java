package io.sluice.bench.wal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where WAL benchmarks put their segments: {@code -Dsluice.bench.dir=...}, else
 * {@code benchmarks/results/tmp} under the working directory (benchmarks/run.sh runs from the
 * repository root, so that is the project's disk, the one BENCHMARKS.md measures with dd; /tmp may
 * be tmpfs elsewhere).
 */
final class BenchDirectory {
    private BenchDirectory() {
    }

    static Path create(String prefix) throws IOException {
        Path parent = Path.of(System.getProperty("sluice.bench.dir", "benchmarks/results/tmp"));
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, prefix);
    }

    /** Closes the benchmark's resources in order, then deletes its directory. */
    static void closeAndDelete(Path dir, AutoCloseable... resources) throws IOException {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        delete(dir);
    }

    static void delete(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
