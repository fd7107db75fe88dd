package io.sluice.server.format;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the current thread (HotSpot's per-thread counter), for allocation budgets. */
public final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationMeter() {
    }

    public static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }
}
