package io.sluice.tools.cli;

import io.sluice.core.head.HeadOptions;
import io.sluice.server.cli.CliContext;
import io.sluice.server.cli.ExitCodes;
import io.sluice.tools.bench.EveryNthSeries;
import io.sluice.tools.bench.QueryWorkload;
import io.sluice.tools.bench.ReplayBenchWriter;
import io.sluice.tools.bench.RoundWorkload;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice bench query-data}: the data of the PromQL benchmark against Prometheus
 * (benchmarks/query-vs-prometheus.sh) — a Sluice data directory for {@code sluice serve} and the same samples
 * as an OpenMetrics file for {@code promtool tsdb create-blocks-from openmetrics}, from one generator
 * ({@link QueryWorkload}).
 */
@Command(name = "query-data", mixinStandardHelpOptions = true,
        description = {"Writes the PromQL benchmark's data (counters x, a classic histogram h_bucket, info for a "
                + "group_left join; 15 s apart from 2024-01-01T00:00:00Z) into a Sluice data directory for "
                + "'sluice serve', and the same samples as OpenMetrics text for 'promtool tsdb create-blocks-from openmetrics'."})
final class BenchQueryDataCommand implements Callable<Integer> {
    private static final int BATCH_BYTES = 4 << 20;

    private final CliContext context;

    @Option(names = "--series", paramLabel = "N", defaultValue = "10000",
            description = "Series: N/2 counters x, the rest histogram buckets, plus 10 info series (default ${DEFAULT-VALUE}).")
    int series;

    @Option(names = "--minutes", paramLabel = "M", defaultValue = "120", description = "Minutes of data (default ${DEFAULT-VALUE}).")
    int minutes;

    @Option(names = "--dir", required = true, paramLabel = "D", description = "Sluice data directory to write; must be empty or absent.")
    Path dir;

    @Option(names = "--openmetrics", required = true, paramLabel = "FILE", description = "OpenMetrics file to write.")
    Path openMetrics;

    @Option(names = "--instances", paramLabel = "K", defaultValue = "1",
            description = "Split the series over K Sluice data directories, D/instance-0 .. D/instance-(K-1), series i "
                    + "in instance i mod K, as K instances of one consumer group hold them (default ${DEFAULT-VALUE}: D itself).")
    int instances;

    @Option(names = "--shards", paramLabel = "K", description = "Shards (default: one per core); 'sluice serve' must use the same head.shards.")
    Integer shards;

    BenchQueryDataCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        PrintWriter out = context.out();
        if (series < 20 || minutes < 1 || instances < 1) {
            context.error("bench query-data: --series must be at least 20, --minutes and --instances at least 1");
            return ExitCodes.CONFIG;
        }
        if (!BenchCommand.isEmptyOrAbsent(dir)) {
            context.error("bench query-data: " + dir + " is not empty (delete it first)");
            return ExitCodes.CONFIG;
        }
        int shardCount = shards != null ? shards : Runtime.getRuntime().availableProcessors();
        long rounds = minutes * 60_000L / QueryWorkload.SCRAPE_INTERVAL_MS;
        try {
            for (int k = 0; k < instances; k++) {
                Path target = instances == 1 ? dir : dir.resolve("instance-" + k);
                HeadOptions options = HeadOptions.defaults(target).withShards(shardCount)
                        .withPerShard(s -> s.withQueue(8, BATCH_BYTES).withRetentionMs(0).withCheckpointIntervalMs(0));
                QueryWorkload all = new QueryWorkload(series);
                RoundWorkload workload = instances == 1 ? all : new EveryNthSeries(all, k, instances);
                long samples = rounds * workload.seriesCount();
                out.printf("query-data: %,d series x %,d rounds = %,d samples, %d shard(s), into %s%n", workload.seriesCount(),
                        rounds, samples, shardCount, target.toAbsolutePath());
                out.flush();
                ReplayBenchWriter.Result r = new ReplayBenchWriter(options, workload, out).write(samples);
                out.printf("query-data: head written in %.1f s (%,d samples appended)%n", r.seconds(), r.appended());
                if (r.appended() != samples) {
                    context.error("bench query-data: the head appended " + r.appended() + " samples, expected " + samples);
                    return ExitCodes.FAILURE;
                }
            }
            long t0 = System.nanoTime();
            try (Writer w = new BufferedWriter(Files.newBufferedWriter(openMetrics, StandardCharsets.UTF_8), 1 << 20)) {
                new QueryWorkload(series).writeOpenMetrics(w, rounds);
            }
            out.printf("query-data: %s written in %.1f s (%,d bytes)%n", openMetrics, (System.nanoTime() - t0) / 1e9,
                    Files.size(openMetrics));
            out.flush();
            return ExitCodes.OK;
        } catch (IOException | UncheckedIOException e) {
            context.error("bench query-data: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
    }
}
