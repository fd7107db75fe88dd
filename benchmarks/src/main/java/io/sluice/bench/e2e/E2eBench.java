package io.sluice.bench.e2e;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.IngestConfig;
import io.sluice.server.kafka.KafkaIngest;
import io.sluice.server.metrics.BatchLatencyMetrics;
import io.sluice.server.metrics.HeadTotals;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The end-to-end load benchmark: a producer pre-fills a topic, the service (a real {@link Head} and
 * {@link KafkaIngest}, as {@code sluice serve} wires them) drains it at its maximum rate, then the
 * producer runs at a sustained rate (with churn if asked) while the service keeps up or not. Writes
 * a report (text on stdout, JSON) and the lag over time (CSV, one row a second) to {@code --out}.
 * See {@link E2eConfig} for the presets and flags; benchmarks/e2e.sh runs it with the right JVM flags.
 *
 * <p>Threads: main (orchestration, sampling once a second), the producer (sustained phase), the
 * consumer threads and shard threads of the service, the embedded broker's when it runs here.
 */
public final class E2eBench {
    private static final long DRAIN_DEADLINE_NS = TimeUnit.MINUTES.toNanos(30);

    private E2eBench() {
    }

    public static void main(String[] args) throws Exception {
        E2eConfig config;
        try {
            config = E2eConfig.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("e2e: " + e.getMessage());
            System.exit(2);
            return;
        }
        E2eReport report = run(config);
        System.out.println(report.text());
    }

    /** Runs one benchmark; throws if the head stored a different number of samples than were produced. */
    public static E2eReport run(E2eConfig config) throws IOException, InterruptedException {
        Path work = config.workDir() != null ? Files.createDirectories(config.workDir()) : Files.createTempDirectory("sluice-e2e-");
        Files.createDirectories(config.outDir());
        String stem = java.time.LocalDate.now() + "-" + config.runName();
        System.out.printf("e2e %s: %,d series, prefill %,d samples, then %d s at %,.0f samples/s (churn %,.0f series/s), "
                        + "%d partitions, %d shards, %d consumer thread(s), work dir %s%n", config.preset(), config.series(),
                config.prefillSamples(), config.sustainSeconds(), config.rateSamplesPerSecond(), config.churnSeriesPerSecond(),
                config.partitions(), config.shards(), config.consumerThreads(), work);
        EmbeddedKafka embedded = config.bootstrapServers() == null ? EmbeddedKafka.start(work.resolve("kafka")) : null;
        try (ProcessProbe probe = new ProcessProbe();
             Topic topic = Topic.create(embedded != null ? embedded.bootstrapServers() : config.bootstrapServers(),
                     "sluice-e2e-" + config.preset() + "-" + System.nanoTime(), config.partitions())) {
            probe.start();
            return new Run(config, topic, probe, work, config.outDir().resolve(stem + "-lag.csv"), embedded != null)
                    .execute(config.outDir().resolve(stem + ".json"));
        } finally {
            if (embedded != null) {
                embedded.close();
            }
            if (config.workDir() == null) {
                io.sluice.bench.kafka.BenchSupport.deleteRecursively(work);
            }
        }
    }

    /** One run's state, owned by the main thread. */
    private static final class Run {
        private final E2eConfig config;
        private final Topic topic;
        private final ProcessProbe probe;
        private final Path work;
        private final Path csv;
        private final boolean embedded;

        Run(E2eConfig config, Topic topic, ProcessProbe probe, Path work, Path csv, boolean embedded) {
            this.config = config;
            this.topic = topic;
            this.probe = probe;
            this.work = work;
            this.csv = csv;
            this.embedded = embedded;
        }

        E2eReport execute(Path json) throws IOException, InterruptedException {
            SeriesPopulation population = new SeriesPopulation(config.series());
            StreamRegistry streams = new StreamRegistry();
            IngestConfig ingestConfig = IngestConfig.builder(topic.bootstrapServers(), "sluice-e2e",
                            Map.of(topic.name(), PayloadFormat.SLUICE))
                    .consumerThreads(config.consumerThreads())
                    .kafkaProperties(Map.of("max.partition.fetch.bytes", Integer.toString(8 << 20),
                            "fetch.max.bytes", Integer.toString(64 << 20)))
                    .build();
            try (E2eProducer producer = new E2eProducer(topic.bootstrapServers(), topic.name(), population);
                 Head head = new Head(HeadOptions.defaults(work.resolve("data")).withShards(config.shards()), streams,
                         new MemoryAccounting())) {
                System.out.printf("prefilling %,d samples ...%n", config.prefillSamples());
                producer.produceUnpaced(config.prefillSamples());
                head.start();
                long startNs = System.nanoTime();
                try (LagSampler sampler = new LagSampler(csv, head, startNs);
                     KafkaIngest ingest = new KafkaIngest(ingestConfig, head, new SimpleMeterRegistry())) {
                    Timer drainLatency = BatchLatencyMetrics.bind(head, new SimpleMeterRegistry(), Duration.ofHours(4));
                    ingest.start();
                    while (!ingest.hasAssignment()) {
                        Thread.sleep(1); // partition assignment takes a few hundred ms
                    }
                    E2eReport.Phase drain = drain(head, sampler, producer.producedSamples(), drainLatency);
                    E2eReport.Phase sustain = E2eReport.Phase.NONE;
                    if (config.sustainSeconds() > 0 && config.rateSamplesPerSecond() > 0) {
                        sustain = sustain(head, sampler, producer);
                    }
                    awaitDurable(head, streams);
                    E2eReport report = report(head, population, producer, drain, sustain);
                    Files.writeString(json, report.json());
                    System.out.println("results: " + json + ", lag over time: " + csv);
                    return report;
                }
            }
        }

        /** Until everything prefilled is appended; figures over the time from assignment to the last append. */
        private E2eReport.Phase drain(Head head, LagSampler sampler, long produced, Timer latency) throws InterruptedException {
            long start = System.nanoTime();
            long cpu = ProcessProbe.processCpuNanos();
            long nextRow = start;
            while (LagSampler.appended(head) < produced) {
                if (System.nanoTime() - start > DRAIN_DEADLINE_NS) {
                    throw new IllegalStateException("drained " + LagSampler.appended(head) + " of " + produced + " samples in 30 minutes");
                }
                if (System.nanoTime() >= nextRow) {
                    long lag = sampler.sample("drain", produced);
                    System.out.printf("  drain %5.1f s: lag %,d samples%n", (System.nanoTime() - start) / 1e9, lag);
                    nextRow += 1_000_000_000L;
                }
                Thread.sleep(5);
            }
            long elapsed = System.nanoTime() - start;
            sampler.sample("drain", produced);
            head.requestSync();
            return phase(produced, elapsed, ProcessProbe.processCpuNanos() - cpu, latency, sampler.takeMaxLag(), 0);
        }

        /** The producer runs on its own thread at the target rate; main samples the lag each second. */
        private E2eReport.Phase sustain(Head head, LagSampler sampler, E2eProducer producer) throws InterruptedException {
            Timer latency = BatchLatencyMetrics.bind(head, new SimpleMeterRegistry(), Duration.ofHours(4));
            long before = LagSampler.appended(head);
            long producedBefore = producer.producedSamples();
            RuntimeException[] failure = new RuntimeException[1];
            Thread thread = Thread.ofPlatform().name("e2e-producer").start(() -> {
                try {
                    producer.producePaced(config.rateSamplesPerSecond(), config.sustainSeconds(), config.churnSeriesPerSecond());
                } catch (RuntimeException e) {
                    failure[0] = e;
                }
            });
            long start = System.nanoTime();
            long cpu = ProcessProbe.processCpuNanos();
            long nextRow = start + 1_000_000_000L;
            long endLag = 0;
            while (thread.isAlive()) {
                if (System.nanoTime() >= nextRow) {
                    endLag = sampler.sample("sustain", producer.producedSamples());
                    System.out.printf("  sustain %5.1f s: lag %,d samples%n", (System.nanoTime() - start) / 1e9, endLag);
                    nextRow += 1_000_000_000L;
                }
                Thread.sleep(5);
            }
            thread.join();
            if (failure[0] != null) {
                throw failure[0];
            }
            long elapsed = System.nanoTime() - start;
            long cpuUsed = ProcessProbe.processCpuNanos() - cpu;
            long appendedAtEnd = LagSampler.appended(head); // one reading: stored + end lag = produced in the window
            long stored = appendedAtEnd - before;
            endLag = producer.producedSamples() - appendedAtEnd;
            long maxLag = sampler.takeMaxLag();
            awaitAppended(head, sampler, producer.producedSamples());
            System.out.printf("  producer: %,.0f samples/s of %,.0f asked%n",
                    (producer.producedSamples() - producedBefore) / (elapsed / 1e9), config.rateSamplesPerSecond());
            return phase(stored, elapsed, cpuUsed, latency, Math.max(maxLag, endLag), endLag);
        }

        private void awaitAppended(Head head, LagSampler sampler, long produced) throws InterruptedException {
            long start = System.nanoTime();
            long nextRow = start + 1_000_000_000L;
            while (LagSampler.appended(head) < produced) {
                if (System.nanoTime() - start > DRAIN_DEADLINE_NS) {
                    throw new IllegalStateException("caught up to " + LagSampler.appended(head) + " of " + produced + " samples in 30 minutes");
                }
                if (System.nanoTime() >= nextRow) {
                    sampler.sample("catch-up", produced);
                    nextRow += 1_000_000_000L;
                }
                Thread.sleep(5);
            }
            sampler.sample("catch-up", produced);
        }

        private void awaitDurable(Head head, StreamRegistry streams) throws InterruptedException {
            Map<Integer, Long> end = topic.endOffsets();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            for (Map.Entry<Integer, Long> e : end.entrySet()) {
                int stream = streams.idOf(topic.name(), e.getKey());
                while (e.getValue() > 0 && head.durableWatermark(stream) < e.getValue() - 1) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("partition " + e.getKey() + " not durable up to " + (e.getValue() - 1));
                    }
                    head.requestSync();
                    Thread.sleep(5);
                }
            }
        }

        private E2eReport.Phase phase(long samples, long elapsedNs, long cpuNs, Timer latency, long maxLag, long endLag) {
            ValueAtPercentile[] p = latency.takeSnapshot().percentileValues();
            double seconds = elapsedNs / 1e9;
            int cores = Runtime.getRuntime().availableProcessors();
            return new E2eReport.Phase(samples, seconds, samples / seconds, samples / seconds / cores,
                    cpuNs > 0 ? samples / (cpuNs / 1e9) : 0, p[0].value(TimeUnit.MILLISECONDS), p[1].value(TimeUnit.MILLISECONDS),
                    p[2].value(TimeUnit.MILLISECONDS), maxLag, endLag);
        }

        private E2eReport report(Head head, SeriesPopulation population, E2eProducer producer, E2eReport.Phase drain,
                                 E2eReport.Phase sustain) {
            long appended = LagSampler.appended(head);
            long chunkBytes = 0;
            for (int s = 0; s < head.shardCount(); s++) {
                chunkBytes += head.shard(s).chunkBytesInUse();
            }
            boolean holds = sustain.samples() > 0 && sustain.samplesPerSecond() >= 0.95 * config.rateSamplesPerSecond()
                    && sustain.endLagSamples() <= 2 * config.rateSamplesPerSecond();
            // the run's GC figures and heap before the full collection that measures the live heap
            int pauses = probe.pauses();
            double pauseP99Ms = probe.pausePercentileMs(0.99);
            double pauseMaxMs = probe.pausePercentileMs(1.0);
            long peakRss = ProcessProbe.peakRssBytes();
            long heapUsed = ProcessProbe.heapUsedBytes();
            E2eReport report = new E2eReport(config.preset(), Instant.now().toString(), loadAverage(),
                    Runtime.getRuntime().availableProcessors(), embedded, population.size(), population.seriesCreated(),
                    producer.producedSamples(), appended, head.seriesCount(), drain, sustain, config.rateSamplesPerSecond(), holds,
                    peakRss, heapUsed, ProcessProbe.liveHeapBytes(), head.accounting().totalBytes(), pauses,
                    pauseP99Ms, pauseMaxMs, (double) chunkBytes / appended,
                    (double) HeadTotals.walBytesWritten(head) / appended);
            if (appended != producer.producedSamples()) {
                throw new IllegalStateException("stored " + appended + " samples, produced " + producer.producedSamples() + "\n" + report.text());
            }
            return report;
        }

        private static String loadAverage() {
            try {
                String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
                return f[0] + " " + f[1] + " " + f[2];
            } catch (IOException e) {
                return "unknown";
            }
        }
    }
}
