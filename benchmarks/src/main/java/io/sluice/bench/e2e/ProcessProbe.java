package io.sluice.bench.e2e;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * This JVM's memory and GC figures: peak and current RSS from /proc/self/status (VmHWM, VmRSS), heap
 * in use, process CPU time, and every GC pause reported by the collectors' notifications from
 * {@link #start()} on. Pauses: the duration of each notification, except those of beans that report
 * whole concurrent cycles (ZGC/Shenandoah "Cycles", G1's "Concurrent GC"), which are not pauses.
 * Any thread; the pauses list is written by the JMX notification thread under its own lock.
 */
final class ProcessProbe implements AutoCloseable {
    private final List<Long> pauseMicros = new ArrayList<>();  // guarded by itself
    private final List<Runnable> unregister = new ArrayList<>();

    void start() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String name = gc.getName();
            if (name.contains("Cycles") || name.contains("Concurrent") || !(gc instanceof NotificationEmitter emitter)) {
                continue;
            }
            NotificationListener listener = (Notification n, Object handback) -> onNotification(n);
            emitter.addNotificationListener(listener, null, null);
            unregister.add(() -> {
                try {
                    emitter.removeNotificationListener(listener);
                } catch (javax.management.ListenerNotFoundException ignored) {
                    // already gone
                }
            });
        }
    }

    private void onNotification(Notification n) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        synchronized (pauseMicros) {
            pauseMicros.add(info.getGcInfo().getDuration() * 1000); // the bean reports whole milliseconds
        }
    }

    /** GC pauses seen so far and the given percentile of their durations (ms; 0 if none). */
    double pausePercentileMs(double percentile) {
        long[] sorted;
        synchronized (pauseMicros) {
            sorted = pauseMicros.stream().mapToLong(Long::longValue).toArray();
        }
        if (sorted.length == 0) {
            return 0;
        }
        Arrays.sort(sorted);
        int index = (int) Math.ceil(percentile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1000.0;
    }

    int pauses() {
        synchronized (pauseMicros) {
            return pauseMicros.size();
        }
    }

    /** Peak resident set of this process (VmHWM), bytes. */
    static long peakRssBytes() {
        return statusKiB("VmHWM:") * 1024;
    }

    /** Current resident set (VmRSS), bytes. */
    static long rssBytes() {
        return statusKiB("VmRSS:") * 1024;
    }

    /** Heap still reachable: in use after a full collection (System.gc(), so only at the end of a run). */
    static long liveHeapBytes() {
        System.gc();
        return heapUsedBytes();
    }

    static long heapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** CPU time of the whole process (every thread, the embedded broker's too), ns. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long statusKiB(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1; // not Linux: reported as unknown
        }
        return -1;
    }

    @Override
    public void close() {
        unregister.forEach(Runnable::run);
    }
}
