package io.sluice.server.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka consumers of one Sluice instance: {@link IngestConfig#consumerThreads()} threads, each
 * its own {@code KafkaConsumer} in the group, feeding the {@link Head}'s shards exactly once (see
 * {@link ConsumerWorker} and docs/design/exactly-once.md).
 *
 * <p>Lifecycle: construct (creates the consumers: a bad client property fails here), {@link #start()}
 * once the head is started (its WALs replayed: the seek positions come from them), {@link #close()}
 * before closing the head. Thread-safe.
 */
public final class KafkaIngest implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaIngest.class);

    private final IngestConfig config;
    private final Head head;
    private final List<ConsumerWorker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger assignedPartitions = new AtomicInteger();
    private final DeadLetterPublisher deadLetters;
    private final GroupLagMonitor groupLag; // null when kafka.group-lag-interval is 0
    private boolean started; // guarded by this
    private boolean closed;  // guarded by this

    public KafkaIngest(IngestConfig config, Head head, MeterRegistry registry) {
        this.config = config;
        this.head = head;
        IngestMetrics metrics = new IngestMetrics(registry, this::pausedPartitions);
        DeadLetterPublisher dlq = null;
        GroupLagMonitor lag = null;
        try {
            if (config.deadLetterTopic() != null) {
                dlq = new DeadLetterPublisher(config.deadLetterTopic(), KafkaClientProperties.deadLetterProducer(config), metrics);
            }
            RejectedRecords rejects = new RejectedRecords(metrics, dlq, config.deadLetterSkippedLines());
            String commitMetadata = headIdentity(head);
            for (int i = 0; i < config.consumerThreads(); i++) {
                workers.add(new ConsumerWorker(i, config, head, metrics, rejects, assignedPartitions, commitMetadata));
            }
            if (config.groupLagIntervalMs() > 0) {
                lag = new GroupLagMonitor(config, registry);
            }
        } catch (KafkaException e) {
            workers.forEach(ConsumerWorker::closeUnstarted); // the consumers created before the failure
            if (dlq != null) {
                dlq.close();
            }
            throw new IllegalArgumentException("Kafka client configuration: " + rootMessage(e), e);
        }
        this.deadLetters = dlq;
        this.groupLag = lag;
    }

    /**
     * Static membership keyed by the data directory: {@code sluice-<head id>} of {@code dataDirectory}
     * (see docs/format/head-id.md). A process restarted on the same directory after a crash rejoins as
     * the same member and gets its partitions back at once, instead of waiting for the dead member's
     * session to expire (45 s by default). Main thread, at start.
     */
    public static String staticMemberId(Path dataDirectory) {
        try {
            return HeadIdentity.memberId(dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the head id in " + dataDirectory + ": " + e.getMessage(), e);
        }
    }

    private static String headIdentity(Head head) {
        try {
            return HeadIdentity.commitMetadata(head.options().dataDirectory());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the head id in " + head.options().dataDirectory()
                    + ": " + e.getMessage(), e);
        }
    }

    /** Starts the consumer threads. The head must be started (its WALs replayed). */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("KafkaIngest already started");
        }
        if (!head.isReady()) {
            throw new IllegalStateException("start the head (replay its WALs) before consuming");
        }
        if (deadLetters != null) {
            deadLetters.checkTopic(); // a missing topic would make every rejected record wait for its metadata
        }
        started = true;
        for (ConsumerWorker worker : workers) {
            threads.add(Thread.ofPlatform().name("sluice-consumer-" + worker.index()).start(worker));
        }
        if (groupLag != null) {
            groupLag.start();
        }
        LOG.info("consuming {} as group {} with {} thread(s)", config.formatByTopic(), config.groupId(), workers.size());
    }

    /** True once the group gave this instance partitions (readiness). */
    public boolean hasAssignment() {
        return assignedPartitions.get() > 0;
    }

    /** Partitions assigned to this instance right now. */
    public int assignedPartitions() {
        return assignedPartitions.get();
    }

    /** Partitions paused right now because a shard queue was full. */
    public int pausedPartitions() {
        int n = 0;
        for (ConsumerWorker w : workers) {
            n += w.pausedPartitions();
        }
        return n;
    }

    /**
     * Graceful: stops polling, hands every routed sample to the shards, waits until they are durable
     * (WAL sync), commits their offsets and leaves the group. Close the head afterwards.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (ConsumerWorker worker : workers) {
            worker.stop();
        }
        boolean interrupted = false;
        for (Thread thread : threads) {
            while (true) {
                try {
                    thread.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // finish the handover first: an abandoned one re-reads records
                }
            }
        }
        if (!started) {
            workers.forEach(ConsumerWorker::closeUnstarted);
        }
        if (groupLag != null) {
            groupLag.close();
        }
        if (deadLetters != null) {
            deadLetters.close();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        LOG.info("consumers of group {} closed", config.groupId());
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m;
    }
}
