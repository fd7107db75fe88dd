package io.sluice.server.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group's view of every partition of the consumed topics, owned by this instance or not, read
 * with an AdminClient every {@code kafka.group-lag-interval} on its own thread ({@code sluice-group-lag}),
 * never on a consumer thread. A consumer thread's {@code sluice_consumer_lag} covers only the
 * partitions it holds, so the partitions of a member that died without leaving (SIGKILL, a lost
 * node) show no lag anywhere until its session expires; these meters show them.
 *
 * <ul>
 *   <li>{@code sluice_group_lag{group,topic,partition}}: end offset minus the group's committed offset (the
 *       log start offset when nothing is committed); NaN when the last check failed.</li>
 *   <li>{@code sluice_group_unowned_partitions{group,reason}}: partitions nobody is consuming. {@code unassigned}:
 *       no member of the group holds it (during a rebalance the coordinator reports no assignment at
 *       all, so every partition briefly counts). {@code stalled}: a member holds it, records were waiting
 *       at the previous check and the committed offset has not moved since. With the classic protocol a
 *       member killed without leaving keeps its assignment in the coordinator until its session times
 *       out, so its partitions are {@code stalled}, not {@code unassigned}; a live Sluice commits as soon
 *       as a WAL sync makes records durable, so a live owner is never stalled for a whole interval unless
 *       it cannot make progress at all.</li>
 *   <li>{@code sluice_group_lag_check_failures_total}: checks that failed (logged at most every 10 s).</li>
 * </ul>
 *
 * <p>Every instance of a group exports the same group-wide values (the broker's view, not this
 * instance's): dashboards and alerts aggregate with {@code max by (group, topic, partition)} (and
 * {@code max by (group, reason)} of the unowned gauge), which stays right however many instances are
 * alive (docs/alerts/sluice.rules.yml). Electing
 * one exporter was rejected: the elected one may be the dead member whose partitions should show.
 *
 * <p>Thread-safety: the check runs on the monitor's thread only; scrapes read volatile/concurrent state.
 */
final class GroupLagMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLagMonitor.class);
    static final String UNASSIGNED = "unassigned";
    static final String STALLED = "stalled";
    private static final long CALL_TIMEOUT_MS = 30_000;

    private final IngestConfig config;
    private final MeterRegistry registry;
    private final Admin admin;
    private final ScheduledExecutorService timer;
    private final RateLimitedLog errors = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS, System::nanoTime);
    private final Map<TopicPartition, PartitionState> partitions = new ConcurrentHashMap<>();
    private final AtomicInteger unassigned = new AtomicInteger();
    private final AtomicInteger stalled = new AtomicInteger();
    private final Counter failures;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();

    GroupLagMonitor(IngestConfig config, MeterRegistry registry) {
        this.config = config;
        this.registry = registry;
        this.admin = Admin.create(adminProperties(config));
        this.failures = register(Counter.builder("sluice.group.lag.check.failures")
                .tag("group", config.groupId())
                .description("Reads of the group's lag (kafka.group-lag-interval) that failed").register(registry));
        unownedGauge(UNASSIGNED, unassigned);
        unownedGauge(STALLED, stalled);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().name("sluice-group-lag").daemon(true).unstarted(r));
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.timer = executor;
    }

    private void unownedGauge(String reason, AtomicInteger value) {
        register(Gauge.builder("sluice.group.unowned.partitions", value, AtomicInteger::get)
                .tags("group", config.groupId(), "reason", reason)
                .description("Partitions of the consumed topics that nobody consumes: unassigned = no member holds them; "
                        + "stalled = a member holds them but has committed nothing for a whole check interval while "
                        + "records waited (a dead member before its session times out)").register(registry));
    }

    private <M extends Meter> M register(M meter) {
        meters.add(meter);
        return meter;
    }

    /** The AdminClient's properties: the pass-through ones an AdminClient knows (security, TLS, SASL...). */
    private static Map<String, Object> adminProperties(IngestConfig config) {
        Set<String> adminKeys = AdminClientConfig.configNames();
        Map<String, Object> p = new HashMap<>();
        config.kafkaProperties().forEach((k, v) -> {
            if (adminKeys.contains(k)) {
                p.put(k, v);
            }
        });
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-" + config.groupId() + "-group-lag");
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        return p;
    }

    void start() {
        long interval = config.groupLagIntervalMs();
        timer.scheduleWithFixedDelay(this::checkLogged, 0, interval, TimeUnit.MILLISECONDS);
    }

    private void checkLogged() {
        try {
            check();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            failures.increment();
            partitions.values().forEach(s -> s.lag = Double.NaN);
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
            errors.warn("group-lag", "cannot read the lag of group " + config.groupId() + " (sluice_group_lag is NaN): " + why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One check: partitions, committed offsets, end offsets and assignments, then the meters. Monitor thread. */
    void check() throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, TopicDescription> topics = get(admin.describeTopics(config.topics()).allTopicNames());
        Set<TopicPartition> all = new HashSet<>();
        for (TopicDescription topic : topics.values()) {
            for (TopicPartitionInfo info : topic.partitions()) {
                all.add(new TopicPartition(topic.name(), info.partition()));
            }
        }
        Map<TopicPartition, OffsetAndMetadata> committed = get(admin.listConsumerGroupOffsets(config.groupId())
                .partitionsToOffsetAndMetadata());
        ConsumerGroupDescription group = get(admin.describeConsumerGroups(List.of(config.groupId()))
                .describedGroups().get(config.groupId()));
        Set<TopicPartition> held = new HashSet<>();
        for (MemberDescription member : group.members()) {
            held.addAll(member.assignment().topicPartitions());
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        for (TopicPartition tp : all) {
            latest.put(tp, OffsetSpec.latest());
            OffsetAndMetadata c = committed.get(tp);
            if (c == null) {
                earliest.put(tp, OffsetSpec.earliest());
            }
        }
        Map<TopicPartition, ListOffsetsResultInfo> ends = get(admin.listOffsets(latest).all());
        Map<TopicPartition, ListOffsetsResultInfo> starts = earliest.isEmpty() ? Map.of() : get(admin.listOffsets(earliest).all());

        int unassignedNow = 0;
        int stalledNow = 0;
        for (TopicPartition tp : all) {
            OffsetAndMetadata c = committed.get(tp);
            long from = c != null ? c.offset() : starts.get(tp).offset();
            long end = ends.get(tp).offset();
            PartitionState state = partitions.computeIfAbsent(tp, this::register);
            if (!held.contains(tp)) {
                unassignedNow++;
            } else if (state.checked && from == state.committed && state.committed < state.end) {
                stalledNow++;
            }
            state.checked = true;
            state.committed = from;
            state.end = end;
            state.lag = Math.max(0, end - from);
        }
        unassigned.set(unassignedNow);
        stalled.set(stalledNow);
    }

    private PartitionState register(TopicPartition tp) {
        PartitionState state = new PartitionState();
        register(Gauge.builder("sluice.group.lag", state, s -> s.lag)
                .tags("group", config.groupId(), "topic", tp.topic(), "partition", Integer.toString(tp.partition()))
                .description("Records between the group's committed offset and the end of the partition, for every "
                        + "partition of the consumed topics (the same on every instance: aggregate with max)")
                .register(registry));
        return state;
    }

    private static <T> T get(KafkaFuture<T> future) throws ExecutionException, InterruptedException, TimeoutException {
        return future.get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close();
        meters.forEach(registry::remove);
    }

    /** One partition as of the last check. Written by the monitor thread; {@link #lag} read by scrapes. */
    private static final class PartitionState {
        boolean checked;
        long committed;
        long end;
        volatile double lag = Double.NaN;
    }
}
