package io.sluice.server.cli;

import io.sluice.core.head.Head;
import io.sluice.core.head.ShardStats;
import io.sluice.server.metrics.HeadTotals;
import java.util.Locale;

/**
 * One progress line per second for {@code sluice demo}: elapsed time, samples/s since the last line,
 * samples stored, active series, lag and WAL bytes. Owned by the demo's thread.
 */
final class DemoProgress {
    private final Head head;
    private final long startNanos;
    private long lastNanos;
    private long lastAppended;

    DemoProgress(Head head, long startNanos) {
        this.head = head;
        this.startNanos = startNanos;
        this.lastNanos = startNanos;
    }

    /** The line for now; {@code lagRecords} -1 when unknown. */
    String line(long nowNanos, long lagRecords) {
        long appended = HeadTotals.sum(head, ShardStats.Counter.SAMPLES_APPENDED);
        double seconds = Math.max(1e-9, (nowNanos - lastNanos) / 1e9);
        long rate = Math.round((appended - lastAppended) / seconds);
        lastNanos = nowNanos;
        lastAppended = appended;
        return String.format(Locale.ROOT, "%6ds  %,12d samples/s  %,14d samples stored  %,9d active series  lag %s  WAL %s",
                (nowNanos - startNanos) / 1_000_000_000L, rate, appended, head.seriesCount(),
                lagRecords < 0 ? "?" : String.format(Locale.ROOT, "%,d records", lagRecords),
                mebibytes(HeadTotals.walBytesWritten(head)));
    }

    static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
