package io.sluice.bench.kafka;

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
import io.sluice.tools.loadgen.LoadgenResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * End to end with the embedded broker in the same JVM (sharing the CPU): the load generator fills a
 * topic, then a fresh Sluice instance (head + consumers) drains it. The figure is samples/s from the
 * first partition assignment until every shard holds every sample durably (WAL synced).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xms8g -Xmx8g \
 *   -cp benchmarks/target/benchmarks.jar io.sluice.bench.kafka.EndToEndBench \
 *   [--series 100000] [--samples 50000000] [--partitions 4] [--consumer-threads 1] [--shards 2] \
 *   [--format sluice|prometheus-remote-write|all] [--dir DIR]
 * </pre>
 */
public final class EndToEndBench {
    private EndToEndBench() {
    }

    public static void main(String[] args) throws Exception {
        int series = Integer.parseInt(BenchSupport.arg(args, "series", "100000"));
        long samples = Long.parseLong(BenchSupport.arg(args, "samples", "50000000"));
        int partitions = Integer.parseInt(BenchSupport.arg(args, "partitions", "4"));
        int threads = Integer.parseInt(BenchSupport.arg(args, "consumer-threads", "1"));
        int shards = Integer.parseInt(BenchSupport.arg(args, "shards", Integer.toString(Runtime.getRuntime().availableProcessors())));
        String which = BenchSupport.arg(args, "format", "all");
        Path dir = Path.of(BenchSupport.arg(args, "dir", Files.createTempDirectory("sluice-e2e-").toString()));
        System.out.printf("end to end: %,d samples over %,d series, %d partitions, %d consumer thread(s), %d shards, in %s%n",
                samples, series, partitions, threads, shards, dir);
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            for (PayloadFormat format : PayloadFormat.values()) {
                if (!io.sluice.tools.loadgen.PayloadWriter.writes(format)) {
                    continue; // the harness feeds what the load generator writes
                }
                if (which.equals("all") || which.equals(format.configName())) {
                    String topic = "e2e-" + format.configName();
                    kafka.createTopic(topic, partitions);
                    fill(kafka, topic, format, series, samples);
                    drain(kafka, dir.resolve("data-" + format.configName()), topic, format, partitions, threads, shards, samples);
                }
            }
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    private static void fill(EmbeddedKafka kafka, String topic, PayloadFormat format, int series, long samples) {
        LoadgenConfig config = LoadgenConfig.of(kafka.bootstrapServers(), topic, format, series, samples)
                .withTime(1_763_800_000_000L, 15_000);
        System.out.printf("filling %s ...%n", topic);
        LoadgenResult result = Loadgen.run(config);
        System.out.println("  " + result.summary());
    }

    private static void drain(EmbeddedKafka kafka, Path dataDir, String topic, PayloadFormat format, int partitions, int threads,
                              int shards, long samples) throws IOException, InterruptedException {
        Map<TopicPartition, Long> end = endOffsets(kafka, topic, partitions);
        StreamRegistry streams = new StreamRegistry();
        IngestConfig config = IngestConfig.builder(kafka.bootstrapServers(), "e2e-" + format.configName(), Map.of(topic, format))
                .consumerThreads(threads)
                .kafkaProperties(Map.of("max.partition.fetch.bytes", Integer.toString(8 << 20),
                        "fetch.max.bytes", Integer.toString(64 << 20)))
                .build();
        try (Head head = new Head(HeadOptions.defaults(dataDir).withShards(shards), streams, new MemoryAccounting())) {
            head.start();
            int[] ids = new int[partitions];
            for (int p = 0; p < partitions; p++) {
                ids[p] = streams.idOf(topic, p);
            }
            try (KafkaIngest ingest = new KafkaIngest(config, head, new SimpleMeterRegistry())) {
                long started = System.nanoTime();
                ingest.start();
                while (!ingest.hasAssignment()) {
                    Thread.sleep(1);
                }
                long start = System.nanoTime();
                Map<String, Long> cpuBefore = BenchSupport.cpuByThreadGroup();
                long lastReport = start;
                while (!drained(head, ids, end, topic)) {
                    Thread.sleep(10);
                    long now = System.nanoTime();
                    if (now - lastReport >= 1_000_000_000L) {
                        lastReport = now;
                        long appended = BenchSupport.appended(head);
                        System.out.printf("  %5.1f s: %,d samples stored (%,.0f samples/s)%n", (now - start) / 1e9, appended,
                                appended * 1e9 / (now - start));
                    }
                }
                long elapsed = System.nanoTime() - start;
                long appended = BenchSupport.appended(head);
                System.out.println("  CPU by thread while draining: " + BenchSupport.topCpu(cpuBefore, BenchSupport.cpuByThreadGroup(), 8));
                System.out.printf("%s drained: %,d samples in %.2f s = %,.0f samples/s (%.2f s from start() to assignment)%n",
                        format.configName(), appended, elapsed / 1e9, appended * 1e9 / elapsed, (start - started) / 1e9);
                if (appended != samples) {
                    throw new IllegalStateException("stored " + appended + " samples, produced " + samples);
                }
            }
        }
    }

    private static boolean drained(Head head, int[] ids, Map<TopicPartition, Long> end, String topic) {
        for (int p = 0; p < ids.length; p++) {
            if (head.durableWatermark(ids[p]) < end.get(new TopicPartition(topic, p)) - 1) {
                head.requestSync();
                return false;
            }
        }
        return true;
    }

    private static Map<TopicPartition, Long> endOffsets(EmbeddedKafka kafka, String topic, int partitions) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        try {
            kafka.admin().listOffsets(request).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return out;
    }
}
