package io.sluice.tools.cli;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.server.metrics.HeadTotals;
import java.util.Collection;
import java.util.Locale;

/**
 * One progress line per second for {@code sluice demo}: elapsed time, samples/s since the last line,
 * samples stored, active series, consumer lag and WAL bytes. Owned by the demo's thread.
 */
final class DemoProgress {
    /** The consumers' per-partition lag gauge (io.sluice.server.kafka registers and removes them). */
    static final String LAG_GAUGE = "sluice.consumer.lag";

    private final Head head;
    private final MeterRegistry registry;
    private final long startNanos;
    private long lastNanos;
    private long lastAppended;

    DemoProgress(Head head, MeterRegistry registry, long startNanos) {
        this.head = head;
        this.registry = registry;
        this.startNanos = startNanos;
        this.lastNanos = startNanos;
    }

    /** The line for {@code nowNanos}. */
    String line(long nowNanos) {
        long appended = HeadTotals.sum(head, ShardStats.Counter.SAMPLES_APPENDED);
        double seconds = Math.max(1e-9, (nowNanos - lastNanos) / 1e9);
        long rate = Math.round((appended - lastAppended) / seconds);
        lastNanos = nowNanos;
        lastAppended = appended;
        return String.format(Locale.ROOT, "%5ds  %,11d samples/s  %,14d samples  %,9d active series  lag %s  WAL %s",
                (nowNanos - startNanos) / 1_000_000_000L, rate, appended, head.seriesCount(), lag(),
                mebibytes(HeadTotals.walBytesWritten(head)));
    }

    /** Records behind the end of the assigned partitions, summed; "?" before any partition is assigned. */
    private String lag() {
        Collection<Gauge> gauges = registry.find(LAG_GAUGE).gauges();
        if (gauges.isEmpty()) {
            return "?";
        }
        double sum = 0;
        for (Gauge g : gauges) {
            double v = g.value();
            sum += Double.isNaN(v) ? 0 : v;
        }
        return String.format(Locale.ROOT, "%,d records", (long) sum);
    }

    static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
