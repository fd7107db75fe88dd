package io.sluice.server.metrics;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;

/**
 * Whether this JVM started from the JDK AOT cache it was given ({@code -XX:AOTCache=FILE}, JDK 25, JEP
 * 483/514/515). The JVM falls back to running without a cache it cannot use (another java, jar or JVM
 * flags than at training) and by default says so at most in one warning line, or not at all (a missing
 * file, another class path): this makes the outcome one log line and a gauge.
 *
 * <p>How it knows: a JVM that mapped a CDS or AOT archive reports {@code sharing} in
 * {@code java.vm.info}; with {@code -XX:AOTCache} given, the only archive it can map is that cache (a
 * refused cache turns sharing off, the default CDS archive is not mapped instead). Immutable; read once
 * at start.
 *
 * @param cachePath the {@code -XX:AOTCache} value, empty when none was given
 * @param outputPath the {@code -XX:AOTCacheOutput} value (a training run writes it at exit), else empty
 * @param sharing whether the JVM mapped an archive ({@code java.vm.info} says {@code sharing})
 */
public record AotCacheStatus(String cachePath, String outputPath, boolean sharing) {
    /** Prometheus {@code sluice_jvm_aot_cache_in_use}: 1 when the JVM started from its AOT cache, else 0. */
    public static final String GAUGE = "sluice.jvm.aot.cache.in.use";

    public AotCacheStatus {
        cachePath = cachePath == null ? "" : cachePath;
        outputPath = outputPath == null ? "" : outputPath;
    }

    /** The status of the running JVM. */
    public static AotCacheStatus current() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        return new AotCacheStatus(option(vm, "AOTCache"), option(vm, "AOTCacheOutput"),
                System.getProperty("java.vm.info", "").contains("sharing"));
    }

    private static String option(HotSpotDiagnosticMXBean vm, String name) {
        try {
            return vm.getVMOption(name).getValue();
        } catch (IllegalArgumentException e) { // a JVM without the flag (not HotSpot 24+): no cache
            return "";
        }
    }

    public boolean requested() {
        return !cachePath.isEmpty();
    }

    public boolean inUse() {
        return requested() && sharing;
    }

    public boolean training() {
        return !outputPath.isEmpty();
    }

    /** One line for the log; empty when no cache was asked for and none is being trained. */
    public String describe() {
        if (training()) {
            return "JVM AOT training run: the AOT cache " + outputPath + " is written when the process exits";
        }
        if (!requested()) {
            return "";
        }
        return inUse() ? "JVM AOT cache " + cachePath + " in use"
                : "JVM AOT cache " + cachePath + " NOT in use: the JVM refused it (missing, or trained with another "
                        + "java, jar or JVM flags; run with -Xlog:aot for the reason) and starts without it, slower";
    }

    /** Logs {@link #describe()}: a warning when a requested cache is not in use, else info. */
    public void log(Logger log) {
        String line = describe();
        if (line.isEmpty()) {
            return;
        }
        if (requested() && !inUse()) {
            log.warn(line);
        } else {
            log.info(line);
        }
    }

    public void bindTo(MeterRegistry registry) {
        Gauge.builder(GAUGE, this, s -> s.inUse() ? 1 : 0).strongReference(true)
                .description("1 when the JVM started from its JDK AOT cache (-XX:AOTCache), else 0").register(registry);
    }
}
