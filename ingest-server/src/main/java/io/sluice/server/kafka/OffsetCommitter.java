package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka half of the exactly-once contract: commits for a partition exactly the offset after what
 * every shard holds durably ({@link Head#durableWatermark(int)} + 1), and only forward. A commit that
 * fails (a rebalance in progress, a coordinator moving) is logged and retried at the next check;
 * nothing is lost by committing late, only re-read and skipped by the shards after a restart.
 *
 * <p>When: the consumer thread asks at every loop turn ({@link #commitIfDue}, at least once per poll
 * timeout); a commit goes out as soon as a WAL sync made offsets durable beyond the last commit, but
 * at most once per {@code kafka.commit-interval}. What another instance stores again after this one
 * crashes is what was durable but not yet committed: about one WAL sync interval of records.
 * Owned by one consumer thread (it uses that thread's consumer).
 */
final class OffsetCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommitter.class);
    private static final long SYNC_REQUEST_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Head head;
    private final IngestMetrics metrics;
    private final RejectedRecords rejects;
    private final String commitMetadata; // HeadIdentity: which data directory's WALs a commit covers
    private final long minSpacingNs;
    /** A failing commit is retried at every check (10 a second by default): its warning at most every 10 s. */
    private final RateLimitedLog failures = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS, System::nanoTime);
    private long lastCommitNs;

    OffsetCommitter(KafkaConsumer<byte[], byte[]> consumer, Head head, IngestMetrics metrics, RejectedRecords rejects,
                    String commitMetadata, long minSpacingNs) {
        this.consumer = consumer;
        this.minSpacingNs = minSpacingNs;
        this.lastCommitNs = System.nanoTime() - minSpacingNs;
        this.commitMetadata = commitMetadata;
        this.head = head;
        this.metrics = metrics;
        this.rejects = rejects;
    }

    /**
     * Commits what became durable for {@code partitions} since their last commit, unless the last commit
     * was less than the minimum spacing ago. Cheap when there is nothing to commit (no request is sent).
     */
    void commitIfDue(Collection<AssignedPartition> partitions, long nowNs) {
        if (nowNs - lastCommitNs >= minSpacingNs) {
            commit(partitions);
        }
    }

    /** Commits what became durable for {@code partitions} since their last commit; true if nothing failed. */
    boolean commit(Collection<AssignedPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = null;
        List<AssignedPartition> moved = null; // collected first: partitions may be a live view
        for (AssignedPartition p : partitions) {
            long next = head.durableWatermark(p.streamId) + 1;
            if (next > 0 && next > p.committedOffset) {
                if (offsets == null) {
                    offsets = new HashMap<>();
                    moved = new ArrayList<>();
                }
                offsets.put(p.partition, new OffsetAndMetadata(next, commitMetadata));
                moved.add(p);
            }
        }
        if (offsets == null) {
            return true;
        }
        rejects.flush(); // a committed offset's rejected records must be in the dead-letter topic
        long start = System.nanoTime();
        lastCommitNs = start;
        try {
            commitSync(offsets);
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            failures.warn("commit", "offset commit of " + offsets.size() + " partition(s) failed, retried later: " + e.getMessage());
            return false;
        } finally {
            metrics.commitLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
        for (AssignedPartition p : moved) {
            p.committedOffset = offsets.get(p.partition).offset();
        }
        return true;
    }

    /** A pending {@code wakeup()} (shutdown) interrupts the first blocking call; the commit still has to happen. */
    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets);
        } catch (WakeupException e) {
            consumer.commitSync(offsets);
        }
    }

    /**
     * Asks the shards to sync and waits until, for each partition, every shard holds durably what was
     * handled ({@code handledByStream[streamId]}), or until {@code deadlineNs}. Returns false on timeout
     * (a shard cannot write its WAL): what is durable is still committed, the rest is read again.
     */
    boolean awaitDurable(Collection<AssignedPartition> partitions, long[] handledByStream, long deadlineNs) {
        long lastRequest = 0;
        while (true) {
            AssignedPartition behind = firstBehind(partitions, handledByStream);
            if (behind == null) {
                return true;
            }
            long now = System.nanoTime();
            if (now - deadlineNs > 0) {
                LOG.warn("{} is durable up to offset {} of {} handled; committing what is durable",
                        behind.partition, head.durableWatermark(behind.streamId), handledByStream[behind.streamId]);
                return false;
            }
            if (now - lastRequest > SYNC_REQUEST_INTERVAL_NS) {
                head.requestSync();
                lastRequest = now;
            }
            LockSupport.parkNanos(PARK_NS);
        }
    }

    private AssignedPartition firstBehind(Collection<AssignedPartition> partitions, long[] handledByStream) {
        for (AssignedPartition p : partitions) {
            if (head.durableWatermark(p.streamId) < handledByStream[p.streamId]) {
                return p;
            }
        }
        return null;
    }
}
