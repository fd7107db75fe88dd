package io.sluice.bench.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.ConsumerPath;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The consumer path without the broker, per format: decode + validate/hash labels + route into shard
 * batches on this thread (the consumer), append + WAL on the head's shard threads, timed until the
 * WAL sync made everything durable. Input: the load generator's records (node-exporter-like series,
 * 500 series x 10 scrapes a record) held in memory. Reports wall ns/sample of the pipeline, the
 * consumer thread's CPU ns/sample and allocated B/sample, and the shards' CPU and allocation.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx6g \
 *   -cp benchmarks/target/benchmarks.jar io.sluice.bench.kafka.ConsumerPathBench \
 *   [--series 100000] [--samples 20000000] [--warmup 5000000] [--shards 2] [--format sluice|prometheus-remote-write|all]
 * </pre>
 */
public final class ConsumerPathBench {
    private static final int RECORDS_PER_POLL = 16;

    private ConsumerPathBench() {
    }

    public static void main(String[] args) throws IOException {
        int series = Integer.parseInt(BenchSupport.arg(args, "series", "100000"));
        long samples = Long.parseLong(BenchSupport.arg(args, "samples", "20000000"));
        long warmup = Long.parseLong(BenchSupport.arg(args, "warmup", "5000000"));
        int shards = Integer.parseInt(BenchSupport.arg(args, "shards", Integer.toString(Runtime.getRuntime().availableProcessors())));
        String which = BenchSupport.arg(args, "format", "all");
        System.out.printf("consumer path without broker: %,d series, %,d measured samples after %,d warm-up, %d shards%n",
                series, samples, warmup, shards);
        for (PayloadFormat format : PayloadFormat.values()) {
            if (!io.sluice.tools.loadgen.PayloadWriter.writes(format)) {
                continue; // the harness feeds what the load generator writes
            }
            if (which.equals("all") || which.equals(format.configName())) {
                run(format, series, samples, warmup, shards);
            }
        }
    }

    private static void run(PayloadFormat format, int series, long samples, long warmup, int shards) throws IOException {
        LoadgenConfig config = LoadgenConfig.of("unused:9092", "unused", format, series, warmup + samples)
                .withTime(1_763_800_000_000L, 15_000);
        List<byte[]> records = RecordSets.encode(config);
        long bytes = records.stream().mapToLong(r -> r.length).sum();
        int warmupRecords = (int) (warmup / ((long) config.seriesPerRecord() * config.samplesPerSeries()));
        Path dir = Files.createTempDirectory("sluice-consumer-path-");
        StreamRegistry streams = new StreamRegistry();
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(shards), streams, new MemoryAccounting())) {
            head.start();
            int stream = streams.idOf("bench", 0);
            ConsumerPath path = new ConsumerPath(head, LabelLimits.DEFAULT, DecoderLimits.DEFAULTS);
            feed(head, path, format, stream, records, 0, warmupRecords);

            long appendedBefore = BenchSupport.appended(head);
            long shardAllocBefore = BenchSupport.allocatedByThreads("sluice-shard-");
            long shardCpuBefore = BenchSupport.cpuOfThreads("sluice-shard-");
            long cpuBefore = BenchSupport.THREADS.getCurrentThreadCpuTime();
            long allocBefore = BenchSupport.THREADS.getCurrentThreadAllocatedBytes();
            long start = System.nanoTime();
            long routed = feed(head, path, format, stream, records, warmupRecords, records.size());
            long wallNs = System.nanoTime() - start;
            long allocated = BenchSupport.THREADS.getCurrentThreadAllocatedBytes() - allocBefore;
            long cpuNs = BenchSupport.THREADS.getCurrentThreadCpuTime() - cpuBefore;
            long shardCpuNs = BenchSupport.cpuOfThreads("sluice-shard-") - shardCpuBefore;
            long shardAlloc = BenchSupport.allocatedByThreads("sluice-shard-") - shardAllocBefore;
            long appended = BenchSupport.appended(head) - appendedBefore;
            if (appended != routed) {
                throw new IllegalStateException(format + ": routed " + routed + " samples but the head appended " + appended);
            }
            System.out.printf("%-24s %,12d samples %6.2f B/sample on the wire | pipeline %6.1f ns/sample (%,.0f samples/s) | "
                            + "consumer %5.1f ns/sample CPU, %.3f B/sample allocated | shards %5.1f ns/sample CPU, %.3f B/sample allocated%n",
                    format.configName(), routed, (double) bytes / (warmup + samples), (double) wallNs / routed, routed * 1e9 / wallNs,
                    (double) cpuNs / routed, (double) allocated / routed, (double) shardCpuNs / routed, (double) shardAlloc / routed);
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    /** Routes records [from, to) as a consumer would (hand-off every poll), then waits until all is durable. */
    private static long feed(Head head, ConsumerPath path, PayloadFormat format, int stream, List<byte[]> records, int from, int to) {
        long samples = 0;
        for (int i = from; i < to; i++) {
            long n = path.route(format, stream, i, records.get(i));
            if (n < 0) {
                throw new IllegalStateException("record " + i + " rejected: " + path.lastRejectReason());
            }
            samples += n;
            if ((i + 1) % RECORDS_PER_POLL == 0 || i == to - 1) {
                path.endPoll();
            }
        }
        while (head.durableWatermark(stream) < to - 1) {
            head.requestSync();
            Thread.onSpinWait();
        }
        return samples;
    }
}
