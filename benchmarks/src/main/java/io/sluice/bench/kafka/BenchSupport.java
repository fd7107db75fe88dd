package io.sluice.bench.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.ShardStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Small helpers of the Kafka benchmark harnesses: arguments, thread counters, clean-up. */
final class BenchSupport {
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

    /** Samples the head's shards appended so far. */
    static long appended(Head head) {
        long n = 0;
        for (int s = 0; s < head.shardCount(); s++) {
            n += head.shard(s).stats().get(ShardStats.Counter.SAMPLES_APPENDED);
        }
        return n;
    }

    static void deleteRecursively(Path dir) {
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
