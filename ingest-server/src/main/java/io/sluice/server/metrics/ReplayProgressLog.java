package io.sluice.server.metrics;

import io.sluice.core.head.Head;
import io.sluice.core.head.stats.ShardStats;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the start-up WAL replay about once a second while it runs: percent of the WAL bytes,
 * samples per second and the estimated time left, e.g.
 * {@code replay: 42.0% of 1.20 GB WAL, 31,000,000 samples, 14.2 M samples/s, ETA 2 s}.
 *
 * <p>Threads: {@link #start()} starts one daemon thread ("sluice-replay-progress") that polls the
 * head's published progress (it never touches a shard); {@link #close()} stops it and waits.
 * {@link #line(long)} is the message itself, for tests.
 */
public final class ReplayProgressLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayProgressLog.class);
    static final long INTERVAL_MS = 1_000;

    private final Head head;
    private final Consumer<String> sink;
    private final LongSupplier nanoClock;
    private final long startNs;
    private Thread thread; // the caller's (start/close)

    public ReplayProgressLog(Head head) {
        this(head, LOG::info, System::nanoTime);
    }

    ReplayProgressLog(Head head, Consumer<String> sink, LongSupplier nanoClock) {
        this.head = head;
        this.sink = sink;
        this.nanoClock = nanoClock;
        this.startNs = nanoClock.getAsLong();
    }

    /** Starts logging every second until the replay is over or {@link #close()}. */
    public ReplayProgressLog start() {
        thread = Thread.ofPlatform().daemon().name("sluice-replay-progress").start(this::run);
        return this;
    }

    private void run() {
        try {
            while (!head.isReplayDone()) {
                Thread.sleep(INTERVAL_MS); // a pacing interval, not synchronization: it only reads published figures
                if (!head.isReplayDone()) {
                    sink.accept(line(nanoClock.getAsLong()));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closed
        }
    }

    /** The progress line at {@code nowNs} (of the clock given at construction). */
    String line(long nowNs) {
        long total = head.replayTotalBytes();
        long done = head.replayedBytes();
        long samples = HeadTotals.sum(head, ShardStats.Counter.REPLAYED_SAMPLES);
        double seconds = Math.max(1e-9, (nowNs - startNs) / 1e9);
        double ratio = total == 0 ? 0 : (double) done / total;
        String eta = done == 0 || total == 0 ? "unknown" : String.format(Locale.ROOT, "%.0f s", seconds * (total - done) / done);
        // Checkpoints load before the WAL replays (seconds at 10^6 series): say so, else the line reads 0 % for that long.
        long series = HeadTotals.sum(head, ShardStats.Counter.SERIES_CREATED);
        long restored = HeadTotals.sum(head, ShardStats.Counter.RESTORED_SAMPLES);
        return String.format(Locale.ROOT, "replay: %.1f%% of %.2f GB WAL, %,d samples, %.1f M samples/s, ETA %s; "
                        + "%,d series in the head, %,d samples from checkpoints",
                100 * ratio, total / 1e9, samples, samples / seconds / 1e6, eta, series, restored);
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
