package io.sluice.bench.e2e;

import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the {@link SeriesPopulation} to a topic in Sluice's native format, scrape round after scrape
 * round (one sample per series per round, 15 s apart in sample time), {@value #SERIES_PER_RECORD}
 * series a record keyed by block so a series stays in one partition. Paced to a rate or unpaced, and
 * churning series at a rate. Owned by one thread; {@link #producedSamples()} is readable from any.
 */
final class E2eProducer implements AutoCloseable {
    static final int SERIES_PER_RECORD = 500;
    static final long STEP_MS = 15_000;

    private final String topic;
    private final SeriesPopulation population;
    private final KafkaProducer<byte[], byte[]> producer;
    private final NativeBatchEncoder encoder = new NativeBatchEncoder(1 << 20, true, false);
    private final long baseMs;
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();
    private final Callback callback;
    private long round;
    private int slot;           // next slot of the current round
    private long churned;

    E2eProducer(String bootstrapServers, String topic, SeriesPopulation population) {
        this.topic = topic;
        this.population = population;
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 << 10));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L << 20));
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-e2e");
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        // a day back, so that the whole run is in the past whatever the head's time checks
        baseMs = (System.currentTimeMillis() - 86_400_000L) / 1000 * 1000;
        callback = (metadata, error) -> {
            if (error != null) {
                failures.incrementAndGet();
                firstFailure.compareAndSet(null, error);
            }
        };
    }

    /** Samples handed to the Kafka producer so far. Any thread. */
    long producedSamples() {
        return produced.get();
    }

    long churnedSeries() {
        return churned;
    }

    /** Produces {@code samples} as fast as the broker takes them, then flushes. */
    void produceUnpaced(long samples) {
        long target = produced.get() + samples;
        while (produced.get() < target) {
            sendRecord((int) Math.min(SERIES_PER_RECORD, target - produced.get()));
        }
        flush();
    }

    /**
     * Produces at {@code samplesPerSecond} for {@code seconds} (or until interrupted), churning
     * {@code churnPerSecond} series on the way, then flushes.
     */
    void producePaced(double samplesPerSecond, long seconds, double churnPerSecond) {
        long startNs = System.nanoTime();
        long endNs = startNs + seconds * 1_000_000_000L;
        long startSamples = produced.get();
        long startChurned = churned;
        while (!Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            if (now >= endNs) {
                break;
            }
            double elapsedS = (now - startNs) / 1e9;
            long due = (long) (elapsedS * samplesPerSecond) - (produced.get() - startSamples);
            if (due < Math.min(SERIES_PER_RECORD, Math.max(1, (long) samplesPerSecond / 100))) {
                LockSupport.parkNanos(1_000_000); // ahead of the schedule: wait a millisecond
                continue;
            }
            int churn = (int) ((long) (elapsedS * churnPerSecond) - (churned - startChurned));
            if (churn > 0) {
                population.churn(churn);
                churned += churn;
            }
            sendRecord((int) Math.min(SERIES_PER_RECORD, due));
        }
        flush();
    }

    /** One record of up to {@code n} series of the current round, one sample each. */
    private void sendRecord(int n) {
        int size = population.size();
        // never across a block boundary: a block's key keeps its series in one partition, in time order
        int count = Math.min(Math.min(n, size - slot), SERIES_PER_RECORD - slot % SERIES_PER_RECORD);
        long t = baseMs + round * STEP_MS;
        encoder.reset(t);
        for (int i = 0; i < count; i++) {
            encoder.beginSeries(population.labels(slot + i));
            encoder.sample(t, population.value(slot + i, round));
            encoder.endSeries();
            population.sent(slot + i);
        }
        int length = encoder.finish();
        byte[] key = Integer.toString(slot / SERIES_PER_RECORD).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        producer.send(new ProducerRecord<>(topic, key, Arrays.copyOf(encoder.buffer(), length)), callback);
        produced.addAndGet(count);
        slot += count;
        if (slot == size) {
            slot = 0;
            round++;
        }
    }

    private void flush() {
        producer.flush();
        Exception failure = firstFailure.get();
        if (failure != null) {
            throw new IllegalStateException(failures.get() + " record(s) refused by the broker: " + failure.getMessage(), failure);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
