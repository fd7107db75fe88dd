package io.sluice.server.kafka;

import java.nio.file.Path;

/**
 * A Sluice instance in a process of its own, for tests that kill it with SIGKILL: a member that dies
 * without leaving the group. Arguments: data directory, group, topic, session timeout (ms); the broker
 * is the one whose address is the fifth argument.
 */
final class DyingMember {
    private DyingMember() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        IngestConfig config = GroupLagTest.config(args[4], args[1], args[2], args[3]);
        IngestInstance instance = new IngestInstance(dir, IngestInstance.headOptions(dir), config);
        System.out.println("started " + instance.ingest.assignedPartitions());
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
