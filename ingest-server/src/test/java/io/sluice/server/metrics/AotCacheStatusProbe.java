package io.sluice.server.metrics;

/**
 * Prints {@link AotCacheStatus#current()} of its own JVM for {@link AotCacheStatusTest}, which runs it in
 * child JVMs from a jar holding only this class and {@link AotCacheStatus} (no Micrometer, no SLF4J: it
 * touches neither {@code bindTo} nor {@code log}).
 */
public final class AotCacheStatusProbe {
    private AotCacheStatusProbe() {
    }

    public static void main(String[] args) {
        AotCacheStatus status = AotCacheStatus.current();
        System.out.println("status=[" + status.describe() + "] gauge=" + (status.inUse() ? 1 : 0));
    }
}
