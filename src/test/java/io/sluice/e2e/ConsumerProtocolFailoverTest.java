package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failover with Kafka's consumer group protocol (KIP-848, {@code kafka.group-protocol=consumer}): three
 * server processes in one group, static members named after their data directories (the default),
 * the group's session shortened through its own configuration ({@code consumer.session.timeout.ms},
 * as an operator would with {@code kafka-configs --entity-type groups}). One instance is killed with
 * SIGKILL while the producer writes: the broker drops it once its session expires — well before the
 * 45 s broker default could — and hands its partitions to the other two, whose committed offsets then
 * advance on every partition. After the killed instance is restarted and everything is consumed, each
 * instance holds every sample it stored exactly once, and together they hold every produced sample.
 * (Samples the dead instance consumed after its last commit are stored again by the one that took
 * over: duplicates across instances, removed at query time by a Thanos Querier's deduplication.)
 */
class ConsumerProtocolFailoverTest {
    private static final int PARTITIONS = 6;
    private static final int SERIES = 60;
    private static final int ROUNDS = 400;
    private static final int SESSION_MS = 6_000;
    /** Longest wait for the dead member's removal: less than the broker's default 45 s session. */
    private static final Duration REMOVAL_TIMEOUT = Duration.ofSeconds(40);

    private final List<ServerLauncher> launchers = new ArrayList<>();
    private SampleProducer producer;

    @AfterEach
    void stop() {
        if (producer != null) {
            producer.close();
        }
        launchers.forEach(ServerLauncher::close);
    }

    @Test
    void aKilledMembersPartitionsMoveWithinTheGroupsSessionAndEachInstanceStoresOnce() throws Exception {
        Path work = E2eEnvironment.newWorkDir("consumer-protocol");
        EmbeddedKafka kafka = E2eEnvironment.broker();
        String topic = E2eEnvironment.unique("kip848");
        String group = E2eEnvironment.unique("kip848-group");
        kafka.createTopic(topic, PARTITIONS);
        shortenGroupSession(kafka, group);
        KnownSamples samples = new KnownSamples(SERIES, PARTITIONS);
        ConsumerProgress progress = new ConsumerProgress(kafka.admin(), topic, PARTITIONS, group);

        for (String name : List.of("a", "b", "c")) {
            launchers.add(new ServerLauncher(work.resolve("data-" + name), work.resolve("logs-" + name),
                    kafka.bootstrapServers(), topic, group, List.of(
                            "kafka.group-protocol=consumer",
                            "kafka.group-instance-id=", // the default: static, named after the data directory
                            "head.shards=1")));
        }
        for (ServerLauncher l : launchers) {
            l.start();
        }
        for (ServerLauncher l : launchers) {
            l.current().awaitReady(ServerLauncher.READY_TIMEOUT);
        }
        Poll.until("three members sharing every partition", Duration.ofSeconds(60),
                () -> owners(kafka, group, 3), () -> describe(kafka, group).toString());
        assertThat(describe(kafka, group).type()).isEqualTo(GroupType.CONSUMER);

        producer = new SampleProducer(kafka.bootstrapServers(), topic, samples, Duration.ofMillis(50), 0, ROUNDS);
        producer.start();
        Poll.until("the producer is some rounds in", Duration.ofMinutes(1), () -> producer.roundsAcknowledged() >= 60,
                () -> "acknowledged " + producer.roundsAcknowledged());
        progress.awaitCommittedBeyond(progress.endOffsets(), Duration.ofMinutes(1));

        ServerLauncher victim = launchers.get(1);
        victim.current().kill();
        Map<TopicPartition, Long> atKill = progress.endOffsets();
        Poll.until("the broker to drop the killed member and give its partitions to the other two", REMOVAL_TIMEOUT,
                () -> owners(kafka, group, 2), () -> describe(kafka, group).toString());
        progress.awaitCommittedBeyond(atKill, Duration.ofMinutes(1));

        victim.startReady();
        assertThat(producer.awaitEnd(Duration.ofMinutes(3))).isEqualTo(ROUNDS);
        progress.awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);

        SampleTally union = new SampleTally(SERIES, ROUNDS);
        for (ServerLauncher l : launchers) {
            SampleTally own = new SampleTally(SERIES, ROUNDS);
            StoredSamples.export(l.current(), own);
            StoredSamples.export(l.current(), union);
            assertThat(own.twice()).as("samples one instance stored twice: " + own.summary()).isZero();
            assertThat(own.unexpected()).as(own.summary()).isZero();
        }
        assertThat(union.lost()).as("samples no instance stored: " + union.summary()).isZero();
    }

    /** The group's own session and heartbeat (KIP-848 group configuration), within the broker's minimums. */
    private static void shortenGroupSession(EmbeddedKafka kafka, String group) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        Collection<AlterConfigOp> ops = List.of(
                new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", Integer.toString(SESSION_MS)),
                        AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("consumer.heartbeat.interval.ms", "1000"), AlterConfigOp.OpType.SET));
        kafka.admin().incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
    }

    /** Whether exactly {@code members} members are in the group and each of them owns some partition. */
    private static boolean owners(EmbeddedKafka kafka, String group, int members) {
        Collection<MemberDescription> m = describe(kafka, group).members();
        int owned = m.stream().mapToInt(d -> d.assignment().topicPartitions().size()).sum();
        return m.size() == members && owned == PARTITIONS
                && m.stream().allMatch(d -> !d.assignment().topicPartitions().isEmpty());
    }

    private static ConsumerGroupDescription describe(EmbeddedKafka kafka, String group) {
        try {
            return kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
        } catch (Exception e) {
            throw new AssertionError("describing group " + group + ": " + e, e);
        }
    }
}
