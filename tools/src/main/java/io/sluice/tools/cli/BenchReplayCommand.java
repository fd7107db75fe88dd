package io.sluice.tools.cli;

import io.sluice.core.head.HeadOptions;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.tools.bench.GaugeWorkload;
import io.sluice.tools.bench.PersistedFilesAside;
import io.sluice.tools.bench.ReplayBenchRestart;
import io.sluice.tools.bench.ReplayBenchWriter;
import io.sluice.tools.bench.RestartProcess;
import io.sluice.tools.bench.TimeVerbose;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice bench replay}: the restart experiment. Writes a WAL of N gauge samples over the
 * series (the Prometheus anchor harness' data), then times a restart in a fresh JVM under
 * {@code /usr/bin/time -v}: wall and CPU seconds, samples/s, samples per CPU-second, peak RSS, WAL
 * bytes per sample.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Writes a WAL of N samples over the series (15 s apart, 10 labels each, noisy 2-decimal gauges) "
                + "through the head, then restarts in a fresh JVM under /usr/bin/time -v and reports wall and CPU "
                + "seconds, samples/s, samples per CPU-second, peak RSS and WAL bytes per sample.",
                "Exit code 1 if the restarted head does not hold every sample written."})
final class BenchReplayCommand implements Callable<Integer> {
    /** Batches big enough for a whole simulated Kafka record of 1,000 samples (~0.3 MB). */
    private static final int BATCH_BYTES = 4 << 20;

    private final CliContext context;

    @Option(names = "--samples", paramLabel = "N", defaultValue = "-1",
            description = "Samples to write (whole scrape rounds: rounded down to a multiple of --series). "
                    + "Required unless --replay-only; with it, the count the restart must find.")
    long samples;

    @Option(names = "--series", paramLabel = "S", defaultValue = "10000", description = "Series (default ${DEFAULT-VALUE}).")
    int series;

    @Option(names = "--dir", required = true, paramLabel = "D", description = "Data directory; must be empty or absent unless --replay-only.")
    Path dir;

    @Option(names = "--shards", paramLabel = "K", description = "Shards (default: one per core); --replay-only needs the count the WAL was written with.")
    Integer shards;

    @Option(names = "--from", paramLabel = "wal|checkpoint", defaultValue = "wal",
            description = "What the restart starts from: 'wal' moves the checkpoints and chunk files aside for the "
                    + "restart (WAL-only replay, like the Prometheus harness' -drop-mmap) and puts them back; "
                    + "'checkpoint' restarts as the service does (load the checkpoint, replay the WAL after it). "
                    + "Default ${DEFAULT-VALUE}.")
    String from;

    @ArgGroup(exclusive = true)
    Mode mode = new Mode();

    @Option(names = "--child-jvm-option", paramLabel = "OPT",
            description = "An extra JVM option for the restarted process (repeatable), e.g. a profiler's -agentpath.")
    List<String> childJvmOptions = new ArrayList<>();

    @Option(names = "--aot-cache", paramLabel = "FILE",
            description = "A JDK 25 AOT cache for the restarted process (JEP 483/515: classes loaded and linked, method "
                    + "profiles). If FILE does not exist, this restart is the training run that writes it "
                    + "(-XX:AOTCacheOutput, slower; reported as training); later restarts start from it (-XX:AOTCache). "
                    + "A cache only fits the java and the jar it was trained with: one older than the jar is retrained "
                    + "(the JDK would run the classes it holds).")
    Path aotCache;

    @Option(names = "--in-process", hidden = true, description = "Internal: be the restarted process (replay and report).")
    boolean inProcess;

    static final class Mode {
        @Option(names = "--write-only", description = "Only write the WAL.")
        boolean writeOnly;

        @Option(names = "--replay-only", description = "Only time the restart of an existing --dir.")
        boolean replayOnly;
    }

    BenchReplayCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        HeadOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            context.error("bench replay: " + e.getMessage());
            return ExitCodes.CONFIG;
        }
        try {
            if (inProcess) {
                out.println(ReplayBenchRestart.run(options).format());
                out.flush();
                return ExitCodes.OK;
            }
            ReplayBenchWriter.Result written = mode.replayOnly ? null : write(options, out);
            if (mode.writeOnly) {
                return ExitCodes.OK;
            }
            return restart(options, written, out);
        } catch (IOException | UncheckedIOException e) {
            context.error("bench replay: " + e.getMessage());
            return ExitCodes.FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            context.error("bench replay: interrupted");
            return ExitCodes.FAILURE;
        }
    }

    private HeadOptions options() {
        int shardCount = shards != null ? shards : Runtime.getRuntime().availableProcessors();
        if (!from.equals("wal") && !from.equals("checkpoint")) {
            throw new IllegalArgumentException("--from is 'wal' or 'checkpoint', not '" + from + "'");
        }
        if (series < 1) {
            throw new IllegalArgumentException("--series must be at least 1, not " + series);
        }
        if (!inProcess && !mode.replayOnly && samples < 0) {
            throw new IllegalArgumentException("--samples is required (unless --replay-only)");
        }
        if (!inProcess && !mode.replayOnly && samples < series) {
            throw new IllegalArgumentException("--samples must be at least --series (" + series + "), not " + samples);
        }
        if (!inProcess && !mode.replayOnly && !BenchCommand.isEmptyOrAbsent(dir)) {
            throw new IllegalArgumentException(dir + " is not empty: the benchmark writes a fresh WAL (delete it, or use --replay-only)");
        }
        if ((inProcess || mode.replayOnly) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(dir + " is not a directory");
        }
        if (aotCache != null && !inProcess) {
            requireJarClassPath();
        }
        // Retention off: 1 B samples at 15 s over 10k series span 17 days, more than the 15 d default,
        // and the restart must find every sample written. No periodic checkpoint: a write longer than
        // the interval would checkpoint twice and delete the WAL before the first, so a WAL-only
        // restart would no longer find every sample; close still writes the one --from checkpoint loads.
        return HeadOptions.defaults(dir).withShards(shardCount)
                .withPerShard(s -> s.withQueue(8, BATCH_BYTES).withRetentionMs(0).withCheckpointIntervalMs(0));
    }

    /** The JDK builds an AOT cache only from jar files: refuse class directories up front, in one line. */
    private static void requireJarClassPath() {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (Files.isDirectory(Path.of(entry))) {
                throw new IllegalArgumentException("--aot-cache needs the packaged jar (./sluice or java -jar sluice.jar): "
                        + "the JDK builds AOT caches from jar files only, and the class path holds the directory " + entry);
            }
        }
    }

    /**
     * Whether a jar on the class path was modified after {@code cache}. A JDK 25 AOT cache does not notice
     * that the jar it was trained with changed: it runs the classes it holds (seen on 25.0.3 with a
     * rebuilt jar of another size and time), so a restart from it would time the old code.
     */
    static boolean olderThanClassPath(Path cache) throws IOException {
        FileTime cacheTime = Files.getLastModifiedTime(cache);
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isRegularFile(path) && Files.getLastModifiedTime(path).compareTo(cacheTime) > 0) {
                return true;
            }
        }
        return false;
    }

    private ReplayBenchWriter.Result write(HeadOptions options, PrintWriter out) throws IOException {
        out.printf("write: %,d samples over %,d series, %d shard(s), into %s%n", samples / series * series, series,
                options.shards(), dir.toAbsolutePath());
        out.flush();
        ReplayBenchWriter.Result r = new ReplayBenchWriter(options, new GaugeWorkload(series), out).write(samples);
        out.printf("write done: %,d samples (%,d appended) in %.2f s, %.2f M samples/s; WAL %,d bytes, %.2f bytes/sample%n",
                r.samples(), r.appended(), r.seconds(), r.samples() / r.seconds() / 1e6, r.walBytes(), r.walBytesPerSample());
        out.flush();
        return r;
    }

    private int restart(HeadOptions options, ReplayBenchWriter.Result written, PrintWriter out)
            throws IOException, InterruptedException {
        List<String> args = List.of("bench", "replay", "--in-process", "--dir", dir.toString(), "--shards",
                Integer.toString(options.shards()));
        out.println("restart: a fresh JVM restarts " + dir.toAbsolutePath() + " from " + (from.equals("wal")
                ? "the WAL alone (checkpoints and chunk files moved aside)" : "its checkpoint and the WAL after it"));
        out.flush();
        List<String> jvmOptions = new ArrayList<>(childJvmOptions);
        if (aotCache != null) {
            if (Files.exists(aotCache) && olderThanClassPath(aotCache)) {
                Files.delete(aotCache);
                out.println("restart: the AOT cache " + aotCache + " is older than the jar: retraining it (a JDK 25 cache "
                        + "does not notice a rebuilt jar and would run the old classes)");
            }
            boolean training = !Files.exists(aotCache);
            if (training) {
                jvmOptions.add("-Xlog:aot=error"); // the training run warns of every class it skips (picocli's, ~40 lines)
            }
            jvmOptions.add((training ? "-XX:AOTCacheOutput=" : "-XX:AOTCache=") + aotCache.toAbsolutePath());
            out.println(training ? "restart: AOT training run: writes " + aotCache + " at exit (timings include the training)"
                    : "restart: starts from the AOT cache " + aotCache);
        }
        RestartProcess.Outcome outcome;
        if (from.equals("wal")) {
            try (PersistedFilesAside aside = PersistedFilesAside.of(dir)) {
                outcome = RestartProcess.run(args, jvmOptions, out);
            }
        } else {
            outcome = RestartProcess.run(args, jvmOptions, out);
        }
        ReplayBenchRestart.Result result = outcome.result();
        if (outcome.exitCode() != 0 || result == null) {
            context.error("bench replay: the restarted process failed (exit " + outcome.exitCode() + "): "
                    + outcome.stderrTail(5));
            return ExitCodes.FAILURE;
        }
        long expected = written != null ? written.samples() : samples;
        out.println(report(result, outcome.time(), written, options.shards()));
        out.flush();
        if (expected >= 0 && result.samples() != expected) {
            context.error("bench replay: the restarted head holds " + result.samples() + " samples, expected " + expected);
            return ExitCodes.FAILURE;
        }
        return ExitCodes.OK;
    }

    static String report(ReplayBenchRestart.Result r, TimeVerbose time, ReplayBenchWriter.Result written, int shards) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("replay: %,d samples, %,d series, %d shard(s); in-process replay %.3f s (%.1f M samples/s)%n",
                r.samples(), r.series(), shards, r.replaySeconds(), r.samples() / r.replaySeconds() / 1e6));
        if (time != null) {
            sb.append(String.format("restart process: wall %.2f s, CPU %.2f s (user %.2f + sys %.2f), %.1f M samples/s, "
                            + "%.1f M samples per CPU-s, peak RSS %.0f MB%n",
                    time.wallSeconds(), time.cpuSeconds(), time.userSeconds(), time.systemSeconds(),
                    r.samples() / time.wallSeconds() / 1e6, r.samples() / time.cpuSeconds() / 1e6, time.maxRssKb() / 1024.0));
        } else {
            sb.append("restart process: no /usr/bin/time (GNU time): process figures not measured").append(System.lineSeparator());
        }
        if (r.rssAnonKb() >= 0) {
            sb.append(String.format("memory after replay: %.0f MB anonymous (of it: head off-heap %.0f MB, heap in use %.0f MB), "
                            + "%.0f MB file-backed (mapped WAL); peak RSS so far %.0f MB%n", r.rssAnonKb() / 1024.0,
                    r.offHeapKb() / 1024.0, r.heapUsedKb() / 1024.0, r.rssFileKb() / 1024.0, r.peakRssKb() / 1024.0));
        }
        if (written != null) {
            sb.append(String.format("WAL: %,d bytes, %.2f bytes/sample", written.walBytes(), written.walBytesPerSample()));
        }
        return sb.toString().strip();
    }
}
