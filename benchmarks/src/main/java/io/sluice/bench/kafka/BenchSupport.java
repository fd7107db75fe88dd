package io.sluice.bench.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.stats.ShardStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Small helpers of the Kafka benchmark harnesses: arguments, thread counters, clean-up. */
public final class BenchSupport {
    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private BenchSupport() {
    }

    /** The value of {@code --name value} in {@code args}, or {@code fallback}. */
    static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--" + name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    /** Bytes allocated so far by every live thread whose name starts with {@code prefix}. */
    static long allocatedByThreads(String prefix) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                total += THREADS.getThreadAllocatedBytes(t.threadId());
            }
        }
        return total;
    }

    /** CPU nanoseconds used so far by every live thread whose name starts with {@code prefix}. */
    static long cpuOfThreads(String prefix) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                total += Math.max(0, THREADS.getThreadCpuTime(t.threadId()));
            }
        }
        return total;
    }

    /** CPU nanoseconds used so far per thread group (the thread name without trailing digits and separators). */
    static Map<String, Long> cpuByThreadGroup() {
        Map<String, Long> cpu = new TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String group = t.getName().replaceAll("[-_ ]?[0-9]+$", "").replaceAll("[0-9]+", "N");
            cpu.merge(group, Math.max(0, THREADS.getThreadCpuTime(t.threadId())), Long::sum);
        }
        return cpu;
    }

    /** The groups that used the most CPU between two {@link #cpuByThreadGroup()} readings, as "group 1.2 s, ...". */
    static String topCpu(Map<String, Long> before, Map<String, Long> after, int n) {
        return after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(n)
                .map(e -> String.format("%s %.1f s", e.getKey(), e.getValue() / 1e9))
                .collect(Collectors.joining(", "));
    }

    /** Samples the head's shards appended so far. */
    static long appended(Head head) {
        long n = 0;
        for (int s = 0; s < head.shardCount(); s++) {
            n += head.shard(s).stats().get(ShardStats.Counter.SAMPLES_APPENDED);
        }
        return n;
    }

    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
