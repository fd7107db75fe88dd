package io.sluice.tools.loadgen;

import io.sluice.server.format.PayloadFormat;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces realistic node-exporter-like metrics ({@link NodeExporterModel}) to any Kafka broker, in a
 * payload format, at an optional pace: {@code sluice loadgen}, the demo's generator, benchmarks and
 * tests. Deterministic: the records are a function of the {@link LoadgenConfig} alone (except Kafka's
 * own record timestamps), laid out as {@link LoadPlan} walks them.
 *
 * <p>A record of the plan is one Kafka record, except in json, one record per sample (as
 * prometheus-kafka-adapter writes); remote-write 2.0 records carry their Content-Type header.
 *
 * <p>Runs on the calling thread until every sample is acknowledged by the broker; interrupting the
 * thread stops it early (the result says so). A record the broker refuses fails the run with the
 * first error, after the others were flushed.
 */
public final class Loadgen {
    private Loadgen() {
    }

    public static LoadgenResult run(LoadgenConfig config) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 << 10));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L << 20));
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-loadgen");
        props.putAll(config.kafkaProperties());
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        Sender sender;
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            sender = new Sender(config, producer, start);
            LoadPlan.walk(config, sender);
            producer.flush();
        } catch (InterruptException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while flushing records to " + config.topic(), e);
        }
        if (sender.interrupted) {
            Thread.currentThread().interrupt(); // cleared to let the producer flush; restored for the caller
        }
        Exception failure = sender.firstFailure.get();
        if (failure != null) {
            throw new IllegalStateException(sender.failures.get() + " record(s) were not accepted by " + config.bootstrapServers()
                    + " for topic " + config.topic() + ": " + failure.getMessage(), failure);
        }
        return new LoadgenResult(sender.records, sender.samples, Math.min(config.series(), sender.maxSeries + 1L),
                sender.valueBytes, System.nanoTime() - start, sender.interrupted);
    }

    /** Encodes and sends the records of the plan; owned by the calling thread (callbacks touch only atomics). */
    private static final class Sender implements LoadPlan.Visitor {
        private final LoadgenConfig config;
        private final KafkaProducer<byte[], byte[]> producer;
        private final NodeExporterModel model;
        private final PayloadWriter writer;
        private final byte[][] keys;
        private final long startNs;
        private final double nanosPerSample;
        private final AtomicLong failures = new AtomicLong();
        private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
        private final Callback callback;
        private long records;
        private long samples;
        private long valueBytes;
        private int maxSeries = -1;
        private int block;
        private boolean interrupted;

        Sender(LoadgenConfig config, KafkaProducer<byte[], byte[]> producer, long startNs) {
            this.config = config;
            this.producer = producer;
            this.model = config.model();
            this.writer = PayloadWriter.of(config.format(), model, config.series());
            this.keys = new byte[(config.series() + config.seriesPerRecord() - 1) / config.seriesPerRecord()][];
            this.startNs = startNs;
            this.nanosPerSample = config.samplesPerSecond() == 0 ? 0 : 1e9 / config.samplesPerSecond();
            this.callback = (metadata, error) -> {
                if (error != null) {
                    failures.incrementAndGet();
                    firstFailure.compareAndSet(null, error);
                }
            };
        }

        @Override
        public void beginRecord(int block, long firstScrape) {
            this.block = block;
            writer.begin(model.timestampMs(block * config.seriesPerRecord(), firstScrape));
        }

        @Override
        public void beginSeries(int series) {
            writer.beginSeries(series);
            maxSeries = Math.max(maxSeries, series);
        }

        @Override
        public void sample(int series, long scrape) {
            writer.sample(model.timestampMs(series, scrape), model.value(series, scrape));
            samples++;
        }

        @Override
        public void endSeries() {
            writer.endSeries();
        }

        @Override
        public boolean endRecord() {
            if (Thread.interrupted()) {
                interrupted = true;
                return false;
            }
            writer.finish();
            for (int i = 0; i < writer.values(); i++) {
                int from = writer.valueOffset(i);
                int length = writer.valueLength(i);
                byte[] value = Arrays.copyOfRange(writer.bytes(), from, from + length); // the producer keeps it until sent
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(config.topic(), key(block), value);
                if (writer.contentType() != null) {
                    record.headers().add(PayloadFormat.CONTENT_TYPE_HEADER, writer.contentType());
                }
                producer.send(record, callback);
                records++;
                valueBytes += length;
            }
            pace();
            return firstFailure.get() == null;
        }

        private byte[] key(int b) {
            byte[] key = keys[b];
            if (key == null) {
                key = NodeExporterModel.utf8("node-exporter-block-" + b);
                keys[b] = key;
            }
            return key;
        }

        /** Sleeps until the samples produced so far are due at the configured rate. */
        private void pace() {
            if (nanosPerSample == 0) {
                return;
            }
            long due = startNs + (long) (samples * nanosPerSample);
            long now;
            while ((now = System.nanoTime()) < due && !Thread.currentThread().isInterrupted()) {
                LockSupport.parkNanos(Math.min(due - now, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }
}
