package io.sluice.server.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Produces pre-made records in the background, phase by phase: each phase starts only once the test
 * {@link #open opens} it, so "mid-stream" is a state the test controls, not a race. Within a
 * phase, records are flushed in small groups so they trickle in while the service consumes.
 */
final class PhasedProducer implements AutoCloseable {
    record Rec(int partition, byte[] value) {
    }

    private final TestTopics topics;
    private final String topic;
    private final List<List<Rec>> phases;
    private final List<CountDownLatch> gates = new ArrayList<>();
    private final List<CountDownLatch> done = new ArrayList<>();
    private final Thread thread;
    private volatile Throwable failure;

    PhasedProducer(TestTopics topics, String topic, List<List<Rec>> phases) {
        this.topics = topics;
        this.topic = topic;
        this.phases = phases;
        for (int i = 0; i < phases.size(); i++) {
            gates.add(new CountDownLatch(1));
            done.add(new CountDownLatch(1));
        }
        thread = Thread.ofPlatform().name("phased-producer").start(this::run);
    }

    private void run() {
        try {
            for (int i = 0; i < phases.size(); i++) {
                gates.get(i).await();
                int n = 0;
                for (Rec r : phases.get(i)) {
                    topics.send(topic, r.partition, r.value);
                    if (++n % 4 == 0) {
                        topics.flush();
                    }
                }
                topics.flush();
                done.get(i).countDown();
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Lets phase {@code i} start. */
    void open(int phase) {
        gates.get(phase).countDown();
    }

    /** Waits until phase {@code i} is produced (acknowledged). */
    void awaitProduced(int phase) throws InterruptedException {
        if (!done.get(phase).await(Await.LONG.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("phase " + phase + " not produced; failure: " + failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (CountDownLatch gate : gates) {
            gate.countDown();
        }
        thread.join();
        if (failure != null) {
            throw new AssertionError("producer failed", failure);
        }
    }
}
