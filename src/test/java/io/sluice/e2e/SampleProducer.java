package io.sluice.e2e;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes rounds of a {@link RoundSource} (e.g. {@link KnownSamples}) into a topic from its own thread, one round per
 * {@code roundInterval} (pacing, so the rounds spread over the server kills), until stopped or
 * the last round is written. Idempotent and acknowledged by all replicas, with timeouts long
 * enough to ride out a 30 s broker outage: every round it reports is in the topic exactly once.
 *
 * <p>Threads: {@link #start()}/{@link #stop()} from the test thread; the producing thread owns the
 * Kafka producer and the samples' encoder.
 */
final class SampleProducer implements AutoCloseable {
    private final RoundSource samples;
    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final long roundIntervalNs;
    private final int firstRound;
    private final int endRound;
    private final AtomicInteger roundsWritten = new AtomicInteger(); // rounds fully acknowledged
    private volatile int roundsSent;                                 // written by the producing thread
    private volatile boolean stopping;
    private volatile Throwable failure;
    private Thread thread;

    /** Writes rounds {@code firstRound} to {@code endRound - 1} (unless stopped before). */
    SampleProducer(String bootstrapServers, String topic, RoundSource samples, Duration roundInterval, int firstRound,
                   int endRound) {
        this.samples = samples;
        this.topic = topic;
        this.roundIntervalNs = roundInterval.toNanos();
        this.firstRound = firstRound;
        this.endRound = endRound;
        this.roundsSent = firstRound;
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.LINGER_MS_CONFIG, "5",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "300000",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000",
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000"),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    void start() {
        thread = Thread.ofPlatform().name("e2e-producer").start(this::run);
    }

    private void run() {
        try {
            long next = System.nanoTime();
            for (int round = firstRound; round < endRound && !stopping; round++) {
                for (int p = 0; p < samples.partitions(); p++) {
                    producer.send(new ProducerRecord<>(topic, p, null, samples.record(p, round)), (metadata, e) -> {
                        if (e != null && failure == null) {
                            failure = e;
                        }
                    });
                }
                roundsSent = round + 1;
                if (round % 20 == 19) {
                    producer.flush(); // acknowledged, so a stop never waits on a long buffer
                    roundsWritten.set(round + 1);
                }
                next += roundIntervalNs;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            producer.flush();
        }
    }

    /** Stops after the round in progress; returns the rounds in the topic (the next round's number). */
    int stop() {
        stopping = true;
        awaitEnd(Duration.ofMinutes(5));
        return rounds();
    }

    /** Waits until the last round is written (the producer stops by itself); returns the next round's number. */
    int awaitEnd(Duration timeout) {
        try {
            thread.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the producer", e);
        }
        if (thread.isAlive()) {
            throw new AssertionError("the producer did not finish within " + timeout.toSeconds() + " s");
        }
        return rounds();
    }

    /** Rounds written; only meaningful once the thread ended (then every round sent was flushed). */
    private int rounds() {
        if (failure != null) {
            throw new AssertionError("producing failed: " + failure, failure);
        }
        return roundsSent;
    }

    /** Rounds acknowledged so far (a lower bound while running). */
    int roundsAcknowledged() {
        return roundsWritten.get();
    }

    @Override
    public void close() {
        stopping = true;
        if (thread != null) {
            try {
                thread.join(TimeUnit.MINUTES.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        producer.close(Duration.ofSeconds(30));
    }
}
