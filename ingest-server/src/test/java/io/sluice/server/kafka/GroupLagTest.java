package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.sluice.core.head.Head;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three instances in one group; one, in a process of its own, is killed with SIGKILL (it never leaves
 * the group). Until its session times out its partitions are consumed by nobody: the live instances'
 * own {@code sluice_consumer_lag} stays 0, while {@code sluice_group_lag} of the dead member's
 * partitions grows with every record produced and {@code sluice_group_unowned_partitions{reason="stalled"}}
 * counts them (the coordinator still lists the dead member's assignment: none is {@code unassigned}).
 * After the session timeout the live instances take them over and both gauges return to 0, and no
 * sample is lost: A, B and the dead member's WALs together hold every produced sample.
 */
class GroupLagTest {
    private static final int PARTITIONS = 6;
    private static final String SESSION_TIMEOUT_MS = "15000";
    private static final Pattern LAG_LINE = Pattern.compile("^sluice_consumer_lag\\{partition=\"(\\d+)\",topic=\"[^\"]+\"\\} (\\S+)$");
    @TempDir
    Path dir;

    /** The configuration of every member: a short session timeout and a group-lag check every second. */
    static IngestConfig config(String bootstrapServers, String group, String topic, String sessionTimeoutMs) {
        return IngestConfig.builder(bootstrapServers, group, Map.of(topic, PayloadFormat.SLUICE))
                .sessionTimeoutMs(Long.parseLong(sessionTimeoutMs))
                .groupLagIntervalMs(1_000)
                .build();
    }

    @Test
    void aKilledMembersPartitionsAreStalledAndTheirGroupLagGrowsUntilItsSessionTimesOut() throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("grouplag", PARTITIONS);
            String group = SharedKafka.unique("group");
            String bootstrap = topics.kafka.bootstrapServers();
            TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 60, PARTITIONS, 17);
            IngestConfig config = config(bootstrap, group, topic, SESSION_TIMEOUT_MS);
            Path dirC = dir.resolve("c");
            Process dying = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                    "-cp", System.getProperty("java.class.path"), DyingMember.class.getName(),
                    dirC.toString(), group, topic, SESSION_TIMEOUT_MS, bootstrap)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("dying.log").toFile()).start();
            try (IngestInstance a = new IngestInstance(dir.resolve("a"), IngestInstance.headOptions(dir.resolve("a")), config);
                 IngestInstance b = new IngestInstance(dir.resolve("b"), IngestInstance.headOptions(dir.resolve("b")), config)) {
                Await.until("three members to share the " + PARTITIONS + " partitions", Await.LONG,
                        () -> membersWithPartitions(topics, group) == 3 && owned(a).size() + owned(b).size() < PARTITIONS
                                && gauge(a, "sluice.group.unowned.partitions", "reason", "unassigned") == 0,
                        () -> "A owns " + owned(a) + ", B owns " + owned(b) + ", dying member alive: " + dying.isAlive());
                Set<Integer> dead = IntStream.range(0, PARTITIONS).boxed().collect(Collectors.toCollection(HashSet::new));
                dead.removeAll(owned(a));
                dead.removeAll(owned(b));
                produceOneEach(topics, topic, payloads);
                topics.awaitCommittedToEnd(group, topic, PARTITIONS); // the third member consumes too
                Await.until("the group lag of every partition to be 0", () -> groupLags(a, topic).stream().allMatch(l -> l == 0));

                dying.destroyForcibly(); // SIGKILL: no LeaveGroup, no commit
                assertThat(dying.waitFor(30, TimeUnit.SECONDS)).isTrue();
                produceOneEach(topics, topic, payloads);
                Await.until("the dead member's partitions to show as stalled", Duration.ofSeconds(30),
                        () -> gauge(a, "sluice.group.unowned.partitions", "reason", "stalled") == dead.size()
                                && gauge(b, "sluice.group.unowned.partitions", "reason", "stalled") == dead.size(),
                        () -> "stalled " + gauge(a, "sluice.group.unowned.partitions", "reason", "stalled") + ", dead " + dead);
                assertThat(gauge(a, "sluice.group.unowned.partitions", "reason", "unassigned"))
                        .as("the coordinator still lists the dead member's assignment").isZero();
                assertThat(owned(a).size() + owned(b).size()).as("the session has not timed out yet").isLessThan(PARTITIONS);
                for (int p : dead) {
                    assertThat(gauge(a, "sluice.group.lag", "topic", topic, "partition", Integer.toString(p))).isEqualTo(1);
                }
                produceOneEach(topics, topic, payloads);
                Await.until("the dead member's group lag to grow while A and B are caught up", Duration.ofSeconds(30),
                        () -> dead.stream().allMatch(p -> gauge(a, "sluice.group.lag", "topic", topic,
                                "partition", Integer.toString(p)) == 2) && ownLagsZero(a) && ownLagsZero(b),
                        () -> "group lags " + groupLags(a, topic) + ", A " + a.scrape().lines().filter(l -> l.startsWith("sluice_consumer_lag")).toList());
                assertThat(owned(a).size() + owned(b).size()).as("still before the session timeout").isLessThan(PARTITIONS);

                Await.until("A and B to take over after the session timeout and consume the backlog", Await.LONG,
                        () -> owned(a).size() + owned(b).size() == PARTITIONS
                                && gauge(a, "sluice.group.unowned.partitions", "reason", "stalled") == 0
                                && gauge(a, "sluice.group.unowned.partitions", "reason", "unassigned") == 0
                                && groupLags(a, topic).stream().allMatch(l -> l == 0),
                        () -> "A owns " + owned(a) + ", B owns " + owned(b) + ", group lags " + groupLags(a, topic));
                Await.until("B's view to agree", () -> groupLags(b, topic).stream().allMatch(l -> l == 0)
                        && gauge(b, "sluice.group.unowned.partitions", "reason", "stalled") == 0);

                // Nothing lost across the crash hand-over: what A and B store plus what the dead member's WALs
                // hold is every produced sample; each instance holds each at most once.
                List<String> storedA = a.stored();
                List<String> storedB = b.stored();
                List<String> storedC;
                try (Head deadHead = new Head(IngestInstance.headOptions(dirC), new StreamRegistry(), new MemoryAccounting())) {
                    deadHead.start(); // replays what the killed process made durable
                    storedC = StoredSamples.of(deadHead);
                }
                Set<String> union = new HashSet<>(storedA);
                union.addAll(storedB);
                union.addAll(storedC);
                assertThat(union).containsExactlyInAnyOrderElementsOf(payloads.produced());
                assertThat(storedC).as("the dead member stored samples before it died").isNotEmpty();
                for (List<String> stored : List.of(storedA, storedB, storedC)) {
                    assertThat(new HashSet<>(stored)).as("no instance stores a sample twice").hasSameSizeAs(stored);
                }
            } finally {
                dying.destroyForcibly();
            }
        }
    }

    private static void produceOneEach(TestTopics topics, String topic, TestPayloads payloads) {
        for (int p = 0; p < PARTITIONS; p++) {
            topics.sendAndWait(topic, p, payloads.record(p, 3, 2));
        }
    }

    private static int membersWithPartitions(TestTopics topics, String group) {
        try {
            ConsumerGroupDescription d = topics.kafka.admin().describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS);
            int n = 0;
            for (MemberDescription m : d.members()) {
                if (!m.assignment().topicPartitions().isEmpty()) {
                    n++;
                }
            }
            return n;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The partitions an instance holds: those with a {@code sluice_consumer_lag} gauge. */
    private static Set<Integer> owned(IngestInstance instance) {
        Set<Integer> out = new HashSet<>();
        for (String line : instance.scrape().lines().toList()) {
            Matcher m = LAG_LINE.matcher(line);
            if (m.matches()) {
                out.add(Integer.parseInt(m.group(1)));
            }
        }
        return out;
    }

    private static boolean ownLagsZero(IngestInstance instance) {
        for (String line : instance.scrape().lines().toList()) {
            Matcher m = LAG_LINE.matcher(line);
            if (m.matches() && Double.parseDouble(m.group(2)) != 0) {
                return false;
            }
        }
        return true;
    }

    private static List<Double> groupLags(IngestInstance instance, String topic) {
        return IntStream.range(0, PARTITIONS)
                .mapToObj(p -> gauge(instance, "sluice.group.lag", "topic", topic, "partition", Integer.toString(p))).toList();
    }

    /** A gauge's value; NaN if it is not registered (yet). */
    private static double gauge(IngestInstance instance, String name, String... tags) {
        Gauge g = instance.registry.find(name).tags(tags).gauge();
        return g == null ? Double.NaN : g.value();
    }
}
