package io.sluice.server.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.server.format.PayloadFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The consumer side's meters, registered once per {@link KafkaIngest} (prefix {@code sluice_}; Micrometer's Prometheus naming turns {@code sluice.records.consumed} into
 * {@code sluice_records_consumed_total} and timers into {@code ..._seconds}).
 *
 * <p>Every meter is thread-safe. Consumer threads add per poll, not per sample: the counters are
 * striped adders, but even those cost more than the hot path can spend per sample.
 */
final class IngestMetrics {
    final Counter recordsConsumed;
    final Counter samplesConsumed;
    final Counter deadLettered;
    final Counter deadLetterFailures;
    final Counter partitionPauses;
    final Timer commitLatency;
    final Timer fetch;
    final Timer decode;
    final Timer queueWait;
    private final Map<String, Counter> recordsRejected = new HashMap<>(); // filled in the constructor, then read-only
    private final Map<String, Counter> samplesRejected = new HashMap<>();
    /** [format ordinal][skip reason index], filled in the constructor, then read-only. */
    private final Counter[][] decodeSkipped = new Counter[PayloadFormat.values().length][];
    private final MeterRegistry registry;

    IngestMetrics(MeterRegistry registry, IntSupplier pausedPartitions) {
        this.registry = registry;
        recordsConsumed = Counter.builder("sluice.records.consumed")
                .description("Kafka records handled by the consumers (stored or rejected)").register(registry);
        samplesConsumed = Counter.builder("sluice.samples.consumed")
                .description("Samples of accepted records handed to the shards").register(registry);
        deadLettered = Counter.builder("sluice.dead.lettered")
                .description("Records copied to the dead-letter topic (rejected ones; stored influx records "
                        + "that lost lines with kafka.dead-letter-skipped-lines)").register(registry);
        deadLetterFailures = Counter.builder("sluice.dead.letter.failures")
                .description("Records the dead-letter topic did not accept (logged, rate-limited)").register(registry);
        partitionPauses = Counter.builder("sluice.partition.pauses")
                .description("Times a consumer paused its partitions because a shard queue was full").register(registry);
        Gauge.builder("sluice.partitions.paused", pausedPartitions, s -> s.getAsInt())
                .strongReference(true) // the supplier is a method reference nobody else holds
                .description("Partitions paused right now by backpressure").register(registry);
        commitLatency = Timer.builder("sluice.commit.latency")
                .description("Time of a synchronous offset commit to Kafka").register(registry);
        fetch = stage("fetch", "waiting in KafkaConsumer.poll for records");
        decode = stage("decode", "decoding records and routing their samples into shard batches");
        queueWait = stage("queue_wait", "waiting for a full shard queue (backpressure)");
        for (String reason : RejectReasons.all()) {
            recordsRejected.put(reason, Counter.builder("sluice.records.rejected").tag("reason", reason)
                    .description("Kafka records rejected whole, by reason").register(registry));
            samplesRejected.put(reason, Counter.builder("sluice.samples.rejected").tag("reason", reason)
                    .description("Samples rejected, by reason").register(registry));
        }
        for (PayloadFormat format : PayloadFormat.values()) {
            List<String> reasons = format.skipReasons();
            decodeSkipped[format.ordinal()] = new Counter[reasons.size()];
            for (int i = 0; i < reasons.size(); i++) {
                decodeSkipped[format.ordinal()][i] = Counter.builder("sluice.decode.skipped")
                        .tags("format", format.configName(), "reason", reasons.get(i))
                        .description("Items skipped inside accepted records, by format and reason (lines, fields, metrics,"
                                + " points, histograms...; see docs/format)").register(registry);
            }
        }
    }

    /** Adds {@code n} to {@code sluice_decode_skipped_total} of a format's skip reason. */
    void decodeSkipped(int formatOrdinal, int reason, long n) {
        decodeSkipped[formatOrdinal][reason].increment(n);
    }

    private Timer stage(String stage, String what) {
        return Timer.builder("sluice.stage").tag("stage", stage)
                .description("Time consumers spend per stage; stage=" + stage + ": " + what).register(registry);
    }

    void rejected(String reason, long samples) {
        recordsRejected.get(reason).increment();
        if (samples > 0) {
            samplesRejected.get(reason).increment(samples);
        }
    }

    /** A gauge of one partition's lag, removed by {@link #removeLag} when the partition is revoked. */
    Gauge registerLag(String topic, int partition, AssignedPartition state) {
        return Gauge.builder("sluice.consumer.lag", state, AssignedPartition::lag)
                .tags("topic", topic, "partition", Integer.toString(partition))
                .description("Records between the consumer's position and the end of the partition").register(registry);
    }

    void removeLag(Gauge gauge) {
        registry.remove(gauge);
    }
}
