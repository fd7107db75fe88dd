package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer thread: its own {@link KafkaConsumer} in the group, polling, routing each record's
 * samples into shard batches ({@link RecordRouter}), handing watermarks to every shard, committing
 * what the shards made durable ({@link OffsetCommitter}) and handing partitions over on rebalance.
 *
 * <p>Each record is decoded in its topic's format, or in the remote-write version its Content-Type
 * header names ({@link RecordFormats}); what the decoder skipped inside a routed record is tallied and
 * published with the other counters once per poll.
 *
 * <p>Each loop turn: poll; route the polled records; if a shard has no free batch, pause every
 * partition and wait for one, polling now and then to stay in the group ({@link #awaitBatches});
 * hand the handled offsets to every shard; submit the batches; update lag; commit what a WAL sync made
 * durable since the last commit (at most once per {@code kafka.commit-interval}).
 *
 * <p>Rebalance (callbacks run on this thread, inside {@code poll}): on assignment each partition is
 * sought to {@code max(committed offset, head.durableWatermark + 1)}; on revocation the partition's
 * pending records are dropped, what was handled is handed to the shards, synced, committed, and the
 * partition forgotten (its lag gauge removed).
 *
 * <p>Every field is owned by the consumer thread, except {@link #running} and
 * {@link #pausedPartitions} (volatile; read by {@link KafkaIngest}).
 */
final class ConsumerWorker implements Runnable, ConsumerRebalanceListener {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerWorker.class);
    /** While blocked: how long to park between attempts to get a batch. */
    private static final long PARK_NS = TimeUnit.MICROSECONDS.toNanos(50);
    /** While blocked: poll this often, so rebalances are served and the consumer stays in the group. */
    private static final long POLL_WHILE_PAUSED_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The longest a revocation or shutdown waits for the shards to make the handled offsets durable. */
    private static final long HANDOVER_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long ERROR_BACKOFF_NS = TimeUnit.SECONDS.toNanos(1);

    private final int index;
    private final IngestConfig config;
    private final Head head;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final IngestMetrics metrics;
    private final RejectedRecords rejects;
    private final AtomicInteger assignedTotal;
    private final RecordRouter router;
    private final OffsetCommitter committer;
    private final String commitMetadata; // HeadIdentity of this head's data directory
    private final PartitionBook book = new PartitionBook();
    private final PendingRecords pending = new PendingRecords();
    private final RecordFormats formats;
    private final Duration pollTimeout;
    private final RateLimitedLog errors = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS, System::nanoTime);

    private volatile boolean running = true;
    private volatile int pausedPartitions;
    private boolean paused;
    private long recordsHandled; // since the last publishTallies()
    private long samplesRouted;
    private long decodeNs;

    ConsumerWorker(int index, IngestConfig config, Head head, IngestMetrics metrics, RejectedRecords rejects,
                   AtomicInteger assignedTotal, String commitMetadata) {
        this.index = index;
        this.commitMetadata = commitMetadata;
        this.config = config;
        this.head = head;
        this.metrics = metrics;
        this.rejects = rejects;
        this.assignedTotal = assignedTotal;
        this.consumer = new KafkaConsumer<>(KafkaClientProperties.consumer(config, index),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.router = new RecordRouter(head, config.labelLimits(), config.decoderLimits().maxRecordBytes(),
                PayloadFormat.values().length);
        this.formats = new RecordFormats(config.decoderLimits());
        this.committer = new OffsetCommitter(consumer, head, metrics, rejects, commitMetadata,
                TimeUnit.MILLISECONDS.toNanos(config.commitIntervalMs()));
        this.pollTimeout = Duration.ofMillis(config.pollTimeoutMs());
    }

    int index() {
        return index;
    }

    // ---------------------------------------------------------------- the loop

    @Override
    public void run() {
        try {
            consumer.subscribe(config.topics(), this);
            while (running) {
                try {
                    pollOnce();
                } catch (WakeupException e) {
                    // close() woke the consumer up: the loop condition ends it
                } catch (KafkaException e) {
                    errors.error("poll", "consumer " + index + ": " + e.getMessage() + "; retrying in 1 s", e);
                    backOff();
                }
            }
        } catch (Throwable t) {
            LOG.error("consumer {} stopped on an internal error", index, t);
        } finally {
            shutdown();
        }
    }

    private void pollOnce() {
        long t0 = System.nanoTime();
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(pollTimeout);
        metrics.fetch.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        if (!polled.isEmpty()) {
            pending.add(polled);
            if (!routePendingTimed()) {
                awaitBatches();
            }
            publishTallies();
        }
        router.handOffWatermarks(book.streams(), book.count(), book.handledByStream());
        router.flush();
        updateLag();
        committer.commitIfDue(book.values(), System.nanoTime());
    }

    private boolean routePendingTimed() {
        long t0 = System.nanoTime();
        boolean done = routePending();
        decodeNs += System.nanoTime() - t0;
        return done;
    }

    /** Routes pending records in order; false if a shard had no free batch (the record is retried later). */
    private boolean routePending() {
        PendingRecords.Run run;
        while ((run = pending.peek()) != null) {
            AssignedPartition p = book.get(run.partition);
            if (p == null) {
                pending.drop(List.of(run.partition)); // revoked since the poll
                continue;
            }
            while (run.hasNext()) {
                ConsumerRecord<byte[], byte[]> record = run.records.get(run.next);
                PayloadFormat format;
                try {
                    format = RecordFormats.resolve(p.format, record.headers());
                } catch (PayloadException e) {
                    format = null;
                    rejects.reject(record, e.reason().label(), e.getMessage(), 0, null);
                }
                if (format != null) {
                    RecordRouter.Outcome outcome = router.route(formats.decoder(format), format.ordinal(), p.streamId, record.offset(),
                            record.value(), record.timestamp());
                    if (outcome == RecordRouter.Outcome.BLOCKED) {
                        return false;
                    }
                    if (outcome == RecordRouter.Outcome.ROUTED) {
                        samplesRouted += router.recordSamples();
                        formats.tallySkips(format);
                        logSkippedLine(record, format);
                    } else {
                        rejects.reject(record, router.rejectReason(), router.rejectMessage(), router.rejectedSamples(),
                                router.takeInternalError());
                    }
                }
                recordsHandled++;
                book.handled(p.streamId, record.offset()); // a rejected record is handled too
                run.next++;
            }
        }
        return true;
    }

    /**
     * A line an accepted record lost (influx): counted in the skipped metric, logged here at most every 10 s,
     * and the record copied to the dead-letter topic if {@code kafka.dead-letter-skipped-lines} is set.
     */
    private void logSkippedLine(ConsumerRecord<byte[], byte[]> record, PayloadFormat format) {
        String line = formats.skippedLine(format);
        if (line != null) {
            errors.warn("skipped-line", "skipped a line of record " + record.topic() + "-" + record.partition() + "@"
                    + record.offset() + " (" + format.configName() + "), kept the rest: " + line);
            rejects.skippedLines(record, formats.skippedLines(format), line);
        }
    }

    /**
     * Backpressure: a shard had no free batch. Pauses every assigned partition (so polls fetch
     * nothing and memory stays bounded), hands what is routed to the shards, and retries as batches
     * come free, polling every {@value #POLL_WHILE_PAUSED_NS} ns to serve rebalances. Resumes the
     * partitions once every pending record is routed.
     */
    private void awaitBatches() {
        long start = System.nanoTime();
        long decodeBefore = decodeNs;
        pause();
        router.handOffWatermarks(book.streams(), book.count(), book.handledByStream());
        router.flush(); // hold no batch while waiting: other consumer threads may need them
        long lastPoll = start;
        while (running && !pending.isEmpty()) {
            if (router.tryUnblock()) {
                if (routePendingTimed()) {
                    break;
                }
                router.flush();
                continue;
            }
            long now = System.nanoTime();
            if (now - lastPoll >= POLL_WHILE_PAUSED_NS) {
                lastPoll = now;
                pending.add(consumer.poll(Duration.ZERO)); // paused: returns nothing, runs rebalance callbacks
                committer.commitIfDue(book.values(), now);
            } else {
                LockSupport.parkNanos(PARK_NS);
            }
        }
        resume();
        long waited = System.nanoTime() - start - (decodeNs - decodeBefore);
        metrics.queueWait.record(Math.max(0, waited), TimeUnit.NANOSECONDS);
    }

    private void pause() {
        Set<TopicPartition> assignment = consumer.assignment();
        consumer.pause(assignment);
        paused = true;
        pausedPartitions = assignment.size();
        metrics.partitionPauses.increment();
    }

    private void resume() {
        consumer.resume(consumer.paused());
        paused = false;
        pausedPartitions = 0;
    }

    private void publishTallies() {
        metrics.recordsConsumed.increment(recordsHandled);
        metrics.samplesConsumed.increment(samplesRouted);
        metrics.decode.record(decodeNs, TimeUnit.NANOSECONDS);
        formats.publish(metrics);
        recordsHandled = 0;
        samplesRouted = 0;
        decodeNs = 0;
    }

    private void updateLag() {
        if (book.isEmpty()) {
            return;
        }
        for (AssignedPartition p : book.all()) {
            OptionalLong lag = consumer.currentLag(p.partition);
            if (lag.isPresent()) {
                p.lag(lag.getAsLong());
            }
        }
    }

    private void backOff() {
        long until = System.nanoTime() + ERROR_BACKOFF_NS;
        while (running && System.nanoTime() - until < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    // ---------------------------------------------------------------- rebalance callbacks (inside poll)

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets(partitions);
        if (committed == null) {
            return; // stopping
        }
        List<String> starts = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            int streamId = head.streams().idOf(tp.topic(), tp.partition());
            long durable = head.durableWatermark(streamId);
            long start = startOffset(tp, committed.get(tp), durable);
            boolean refill = head.discardedData();
            if (refill) {
                // A shard lost its persisted data (damage) and started empty: what it held must come again, even
                // from below the committed offset; shards that still hold a record skip it by their watermarks.
                start = durable + 1;
            }
            if (refill && start == 0) {
                consumer.seekToBeginning(List.of(tp));
            } else if (start >= 0) {
                consumer.seek(tp, start);
            }
            PayloadFormat format = config.formatByTopic().get(tp.topic());
            // The group's committed offset, not the start: when the WALs hold more than was committed (a crash
            // between a sync and its commit) the start is past the commit, and that must still be committed
            // even if no new record ever arrives, or the partition shows a lag that is not there.
            OffsetAndMetadata groupCommit = committed.get(tp);
            AssignedPartition p = new AssignedPartition(tp, streamId, format, groupCommit == null ? -1 : groupCommit.offset());
            p.lagGauge = metrics.registerLag(tp.topic(), tp.partition(), p);
            // Nothing handled by this thread yet: a revocation before the first record waits for nothing.
            book.add(p, -1);
            router.resetWatermark(streamId, -1);
            assignedTotal.incrementAndGet();
            starts.add(tp + "@" + (start >= 0 ? Long.toString(start) : "auto.offset.reset"));
        }
        if (paused) {
            consumer.pause(partitions);
            pausedPartitions = consumer.paused().size();
        }
        LOG.info("consumer {} assigned {}", index, starts);
    }

    /**
     * Where a partition resumes: after what the WALs hold ({@code durable + 1}) or at the commit if that
     * is further (another instance consumed meanwhile), except when the commit is this head's own
     * ({@link HeadIdentity}) and ahead of its WALs: then WAL data it covered was lost (open cut a
     * damaged log) and the partition goes back to the WALs' watermark so the cut records are consumed
     * again; the shards skip what they still hold. -1: no position (auto.offset.reset).
     */
    private long startOffset(TopicPartition tp, OffsetAndMetadata committed, long durable) {
        long afterWal = durable < 0 ? -1 : durable + 1;
        if (committed == null) {
            return afterWal;
        }
        long rewound = Math.max(afterWal, 0);
        if (committed.offset() > rewound && commitMetadata.equals(committed.metadata())) {
            LOG.warn("consumer {}: {} was committed up to offset {} by this data directory, but its WALs hold records only"
                    + " below offset {}: WAL data was lost (a damaged WAL cut on open, or a segment removed); consuming"
                    + " again from offset {}", index, tp, committed.offset(), rewound, rewound);
            return rewound;
        }
        return Math.max(committed.offset(), afterWal);
    }

    /**
     * The group's committed offsets, retried while the coordinator is unavailable: a partition cannot
     * be consumed correctly without them. A non-retriable error (e.g. authorisation) stops this
     * consumer loudly rather than leave partitions assigned but unrouted. Null if stopping.
     */
    private Map<TopicPartition, OffsetAndMetadata> committedOffsets(Collection<TopicPartition> partitions) {
        while (running) {
            try {
                return consumer.committed(new HashSet<>(partitions));
            } catch (RetriableException e) {
                errors.warn("committed", "consumer " + index + " cannot read the committed offsets of " + partitions
                        + " (" + e.getMessage() + "); retrying");
                backOff();
            } catch (WakeupException e) {
                return null;
            } catch (KafkaException e) {
                running = false;
                throw new IllegalStateException("consumer " + index + " cannot read the committed offsets of " + partitions
                        + ": " + e.getMessage(), e);
            }
        }
        return null;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        List<AssignedPartition> leaving = owned(partitions);
        pending.drop(partitions);
        handOver(leaving);
        forget(leaving);
        LOG.info("consumer {} revoked {} (committed up to the durable offsets)", index, partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        // Another member owns them already: committing would be refused; what was routed stays in the
        // WAL, and the new owner re-reads from the last commit.
        pending.drop(partitions);
        forget(owned(partitions));
        LOG.warn("consumer {} lost {} without a commit (session expired?)", index, partitions);
    }

    private List<AssignedPartition> owned(Collection<TopicPartition> partitions) {
        List<AssignedPartition> owned = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            AssignedPartition p = book.get(tp);
            if (p != null) {
                owned.add(p);
            }
        }
        return owned;
    }

    /** Makes what was handled of {@code partitions} durable in every shard (bounded wait), then commits it. */
    private void handOver(List<AssignedPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + HANDOVER_TIMEOUT_NS;
        while (!router.handOffWatermarks(book.streams(), book.count(), book.handledByStream())
                && System.nanoTime() - deadline < 0) {
            router.flush(); // a shard had no free batch: hand over what we hold and wait for one
            LockSupport.parkNanos(PARK_NS);
        }
        router.flush();
        committer.awaitDurable(partitions, book.handledByStream(), deadline);
        committer.commit(partitions);
    }

    private void forget(List<AssignedPartition> partitions) {
        for (AssignedPartition p : partitions) {
            book.remove(p.partition);
            metrics.removeLag(p.lagGauge);
            assignedTotal.decrementAndGet();
        }
        if (paused) {
            pausedPartitions = consumer.paused().size();
        }
    }

    // ---------------------------------------------------------------- shutdown

    /** Asks the loop to stop; the thread then hands everything over, commits and leaves. Any thread. */
    void stop() {
        running = false;
        consumer.wakeup();
    }

    /** Graceful: drops unrouted records, makes the routed ones durable, commits, closes the consumer. */
    private void shutdown() {
        try {
            pending.clear();
            handOver(book.all());
        } catch (RuntimeException e) {
            LOG.warn("consumer {} could not commit its final offsets: {}", index, e.toString());
        } finally {
            router.releaseOpenBatches();
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(30))); // revokes (and commits nothing new)
            } catch (RuntimeException e) {
                LOG.warn("consumer {} did not close cleanly: {}", index, e.toString());
            }
            forget(book.all());
            pausedPartitions = 0;
        }
    }

    /** Closes the consumer of a worker whose thread never ran. */
    void closeUnstarted() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }

    /** Partitions this thread has paused for backpressure right now. Any thread. */
    int pausedPartitions() {
        return pausedPartitions;
    }
}
