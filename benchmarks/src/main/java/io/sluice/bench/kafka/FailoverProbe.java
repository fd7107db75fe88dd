package io.sluice.bench.kafka;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The measuring half of {@code benchmarks/failover.sh}: watches a consumer group's lag on a topic
 * through the AdminClient (end offset minus committed offset, summed over partitions, every 100 ms),
 * measures the produce rate over a warm-up, SIGKILLs one instance and reports how long until the
 * group is back: the other members own every partition between them ("resumed": the dead member was
 * dropped and its partitions reassigned), then every partition is committed up to its end offset at
 * that moment (the backlog of the dead member's partitions consumed) with the total lag under
 * {@code --lag-seconds} of data ("recovered"). Lag and rate are in records (a loadgen record holds
 * thousands of samples).
 * Self-contained so that it also runs as a single source file on the server jar's class path:
 *
 * <pre>java -cp tools/target/sluice.jar benchmarks/src/main/java/io/sluice/bench/kafka/FailoverProbe.java \
 *   --bootstrap-servers H:P --group G --topic T --partitions 12 --kill PID [--warmup-seconds 20]
 *   [--lag-seconds 2] [--timeout-seconds 120] [--trace FILE (CSV: seconds after the kill, lag)]</pre>
 *
 * Prints one {@code failover:} line (seconds from the kill to resumption and to recovery, the peak lag in
 * records and in seconds of data, the median lag over the warm-up's second half) and exits 0, or 1 when
 * the group did not recover in time.
 */
public final class FailoverProbe {
    private static final long TICK_MS = 100;

    private FailoverProbe() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i], args[i + 1]);
        }
        String topic = required(opts, "--topic");
        String group = required(opts, "--group");
        int partitions = Integer.parseInt(required(opts, "--partitions"));
        long victim = Long.parseLong(required(opts, "--kill"));
        double warmupS = Double.parseDouble(opts.getOrDefault("--warmup-seconds", "20"));
        double lagSeconds = Double.parseDouble(opts.getOrDefault("--lag-seconds", "2"));
        double timeoutS = Double.parseDouble(opts.getOrDefault("--timeout-seconds", "120"));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                required(opts, "--bootstrap-servers")))) {
            Offsets offsets = new Offsets(admin, topic, partitions, group);
            // warm-up: the produce rate (records/s) and the steady lag, with every instance consuming
            Map<TopicPartition, Long> end0 = offsets.end();
            long t0 = System.nanoTime();
            List<Long> secondHalf = new ArrayList<>(); // the lag once the instances have warmed up
            while (System.nanoTime() - t0 < (long) (warmupS * 1e9)) {
                Thread.sleep(TICK_MS);
                long lag = lag(offsets.end(), offsets.committed());
                if (System.nanoTime() - t0 > (long) (warmupS * 0.5e9)) {
                    secondHalf.add(lag);
                }
            }
            double rate = (sum(offsets.end()) - sum(end0)) / ((System.nanoTime() - t0) / 1e9);
            Collections.sort(secondHalf);
            long steadyLag = secondHalf.isEmpty() ? 0 : secondHalf.get(secondHalf.size() / 2);
            if (rate <= 0) {
                System.err.println("failover: nothing was produced during the warm-up");
                System.exit(1);
            }
            long threshold = (long) (lagSeconds * rate);

            ProcessHandle handle = ProcessHandle.of(victim).orElseThrow(() -> new IllegalStateException("no process " + victim));
            int members = offsets.members().size();
            long killed = System.nanoTime();
            handle.destroyForcibly(); // SIGKILL
            long peak = 0;
            double resumed = -1;
            Map<TopicPartition, Long> atResumed = null;
            double recovered = -1;
            StringBuilder trace = new StringBuilder("seconds_after_kill,lag_records\n");
            while (System.nanoTime() - killed < (long) (timeoutS * 1e9)) {
                Thread.sleep(TICK_MS);
                Map<TopicPartition, Long> committed = offsets.committed();
                long lag = lag(offsets.end(), committed);
                double t = (System.nanoTime() - killed) / 1e9;
                trace.append(String.format(Locale.ROOT, "%.2f,%d%n", t, lag));
                peak = Math.max(peak, lag);
                if (resumed < 0 && ownedByTheOthers(offsets.members(), members - 1, partitions)) {
                    resumed = t;
                    atResumed = offsets.end();
                }
                if (atResumed != null && lag(atResumed, committed) == 0 && lag < threshold) {
                    recovered = t;
                    break;
                }
            }
            String traceFile = opts.get("--trace");
            if (traceFile != null) {
                Files.writeString(Path.of(traceFile), trace);
            }
            System.out.println(String.format(Locale.ROOT,
                    "failover: recovered_s=%s resumed_s=%s rate_records_per_s=%.0f threshold_records=%d "
                            + "peak_lag_records=%d peak_lag_s=%.1f steady_lag_before_kill_s=%.2f",
                    seconds(recovered), seconds(resumed), rate, threshold, peak, peak / rate, steadyLag / rate));
            System.exit(recovered < 0 ? 1 : 0);
        }
    }

    /** Whether {@code expected} members own every partition between them. */
    private static boolean ownedByTheOthers(Collection<MemberDescription> members, int expected, int partitions) {
        return members.size() == expected
                && members.stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum() == partitions;
    }

    private static String seconds(double s) {
        return s < 0 ? "timeout" : String.format(Locale.ROOT, "%.1f", s);
    }

    private static String required(Map<String, String> opts, String name) {
        String v = opts.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return v;
    }

    /** Records of {@code end} not yet committed, summed over partitions. */
    private static long lag(Map<TopicPartition, Long> end, Map<TopicPartition, Long> committed) {
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            lag += Math.max(0, e.getValue() - committed.getOrDefault(e.getKey(), 0L));
        }
        return lag;
    }

    private static long sum(Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** End and committed offsets of one group on one topic. */
    private record Offsets(Admin admin, String topic, int partitions, String group) {
        Map<TopicPartition, Long> end() throws Exception {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                request.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> out = new HashMap<>();
            admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
            return out;
        }

        Collection<MemberDescription> members() throws Exception {
            return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group).members();
        }

        Map<TopicPartition, Long> committed() throws Exception {
            Map<TopicPartition, Long> out = new HashMap<>();
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            offsets.forEach((tp, om) -> {
                if (om != null && tp.topic().equals(topic)) {
                    out.put(tp, om.offset());
                }
            });
            return out;
        }
    }
}
