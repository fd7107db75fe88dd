package io.sluice.bench.kafka;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.IngestConfig;
import io.sluice.server.kafka.KafkaIngest;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The commit window and the commit load of one instance under steady load, for each
 * {@code kafka.commit-interval} given: a paced producer writes {@code --rate} samples/s over
 * {@code --partitions} partitions while one Sluice instance (one consumer thread) consumes them.
 *
 * <ul>
 *   <li><b>Commit load</b>: offset commits per second, counted twice: the instance's commit timer
 *       ({@code sluice_commit_latency_seconds_count}, one per {@code commitSync}) and the broker's own
 *       {@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=OffsetCommit} count (the
 *       broker runs in this JVM).</li>
 *   <li><b>Duplicate window</b>: every 20 ms, the records the WALs hold durably but the group has not
 *       committed ({@code Head.durableWatermark + 1 - committed}, summed over partitions), in samples.
 *       That is what another instance stores a second time if this one is killed at that instant
 *       (it resumes from the commit); the mean is the expectation for a crash at a random moment.
 *       The commit is read first, then the WALs, so a sample may overstate by what one read took.</li>
 * </ul>
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx4g \
 *   -cp benchmarks/target/benchmarks.jar io.sluice.bench.kafka.CommitWindowBench \
 *   [--partitions 8] [--rate 100000] [--seconds 30] [--commit-intervals 1000,100] [--shards 2]
 * </pre>
 */
public final class CommitWindowBench {
    private static final int SERIES_PER_RECORD = 100;
    private static final long SAMPLE_EVERY_MS = 20;

    private CommitWindowBench() {
    }

    public static void main(String[] args) throws Exception {
        int partitions = Integer.parseInt(BenchSupport.arg(args, "partitions", "8"));
        double rate = Double.parseDouble(BenchSupport.arg(args, "rate", "100000"));
        int seconds = Integer.parseInt(BenchSupport.arg(args, "seconds", "30"));
        int shards = Integer.parseInt(BenchSupport.arg(args, "shards", "2"));
        long[] intervals = Arrays.stream(BenchSupport.arg(args, "commit-intervals", "1000,100").split(","))
                .mapToLong(Long::parseLong).toArray();
        Path dir = Files.createTempDirectory("sluice-commit-window-");
        System.out.printf("commit window: %,.0f samples/s over %d partitions, %d shards (wal.sync-interval 100ms), %d s per run%n",
                rate, partitions, shards, seconds);
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            for (long interval : intervals) {
                run(kafka, dir.resolve("data-" + interval), partitions, rate, seconds, shards, interval);
            }
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    private static void run(EmbeddedKafka kafka, Path dataDir, int partitions, double rate, int seconds, int shards,
                            long commitIntervalMs) throws Exception {
        String topic = "window-" + commitIntervalMs;
        String group = "window-" + commitIntervalMs;
        kafka.createTopic(topic, partitions);
        int warmup = 5;
        long samples = (long) (rate * (warmup + seconds + 5));
        LoadgenConfig load = LoadgenConfig.of(kafka.bootstrapServers(), topic, PayloadFormat.SLUICE, 10_000, samples)
                .withRate(rate).withShape(SERIES_PER_RECORD, 1).withTime(1_763_800_000_000L, 15_000);
        Thread producer = Thread.ofPlatform().name("producer").start(() -> {
            try {
                Loadgen.run(load);
            } catch (IllegalStateException stopped) {
                // interrupted at the end of the run
            }
        });

        StreamRegistry streams = new StreamRegistry();
        IngestConfig config = IngestConfig.builder(kafka.bootstrapServers(), group, Map.of(topic, PayloadFormat.SLUICE))
                .commitIntervalMs(commitIntervalMs).groupLagIntervalMs(0).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Head head = new Head(HeadOptions.defaults(dataDir).withShards(shards), streams, new MemoryAccounting())) {
            head.start();
            int[] ids = new int[partitions];
            TopicPartition[] tps = new TopicPartition[partitions];
            for (int p = 0; p < partitions; p++) {
                ids[p] = streams.idOf(topic, p);
                tps[p] = new TopicPartition(topic, p);
            }
            try (KafkaIngest ingest = new KafkaIngest(config, head, registry)) {
                ingest.start();
                while (!ingest.hasAssignment()) {
                    Thread.sleep(10);
                }
                Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
                Timer commits = registry.find("sluice.commit.latency").timer();
                long commitsBefore = commits.count();
                long brokerBefore = brokerOffsetCommits();
                long appendedBefore = BenchSupport.appended(head);
                long start = System.nanoTime();
                long end = start + TimeUnit.SECONDS.toNanos(seconds);
                long[] gaps = new long[(int) (seconds * 1000 / SAMPLE_EVERY_MS) + 16];
                int n = 0;
                while (System.nanoTime() < end && n < gaps.length) {
                    Map<TopicPartition, OffsetAndMetadata> committed = kafka.admin().listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get();
                    long gapRecords = 0;
                    for (int p = 0; p < partitions; p++) {
                        OffsetAndMetadata c = committed.get(tps[p]);
                        long next = head.durableWatermark(ids[p]) + 1;
                        gapRecords += Math.max(0, next - (c == null ? 0 : c.offset()));
                    }
                    gaps[n++] = gapRecords * SERIES_PER_RECORD;
                    Thread.sleep(SAMPLE_EVERY_MS);
                }
                double elapsed = (System.nanoTime() - start) / 1e9;
                long commitCount = commits.count() - commitsBefore;
                long brokerCount = brokerOffsetCommits() - brokerBefore;
                long appended = BenchSupport.appended(head) - appendedBefore;
                long[] sorted = Arrays.copyOf(gaps, n);
                Arrays.sort(sorted);
                double mean = Arrays.stream(sorted).average().orElse(0);
                System.out.printf("kafka.commit-interval %d ms: %.1f commits/s (instance), %s OffsetCommit requests/s (broker); "
                                + "%,.0f samples/s stored; durable but uncommitted: mean %,.0f samples (%.0f ms of input), "
                                + "p99 %,d, max %,d (%d readings)%n",
                        commitIntervalMs, commitCount / elapsed, brokerCount < 0 ? "n/a" : String.format("%.1f", brokerCount / elapsed),
                        appended / elapsed, mean, mean * 1000 / rate, sorted[(int) (n * 0.99)], sorted[n - 1], n);
            }
        } finally {
            producer.interrupt();
            producer.join();
        }
    }

    /** The broker's count of OffsetCommit requests (all versions), or -1 if its metrics are not in this JVM's JMX. */
    private static long brokerOffsetCommits() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        var names = server.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=OffsetCommit,*"),
                null);
        if (names.isEmpty()) {
            return -1;
        }
        long total = 0;
        for (ObjectName name : names) {
            total += ((Number) server.getAttribute(name, "Count")).longValue();
        }
        return total;
    }
}
