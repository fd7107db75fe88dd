package io.sluice.bench.e2e;

import io.sluice.core.head.Head;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.metrics.HeadTotals;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes one CSV row per call ({@link #sample}), meant once a second from the bench's main thread:
 * time since the run started, phase, samples produced and stored, the lag between them (samples the
 * service has not appended yet), the stored rate since the previous row, series and memory.
 */
final class LagSampler implements AutoCloseable {
    static final String HEADER = "elapsed_s,phase,produced_samples,appended_samples,lag_samples,ingest_samples_per_s,"
            + "series,heap_bytes,offheap_bytes,rss_bytes";

    private final BufferedWriter out;
    private final Head head;
    private final MemoryAccounting accounting;
    private final long startNs;
    private long lastNs;
    private long lastAppended;
    private long maxLag;

    LagSampler(Path csv, Head head, long startNs) throws IOException {
        this.out = Files.newBufferedWriter(csv);
        this.head = head;
        this.accounting = head.accounting();
        this.startNs = startNs;
        this.lastNs = startNs;
        out.write(HEADER);
        out.newLine();
    }

    static long appended(Head head) {
        return HeadTotals.sum(head, ShardStats.Counter.SAMPLES_APPENDED);
    }

    /** Writes a row; returns the lag in samples. */
    long sample(String phase, long produced) {
        long now = System.nanoTime();
        long appended = appended(head);
        long lag = Math.max(0, produced - appended);
        double rate = now > lastNs ? (appended - lastAppended) * 1e9 / (now - lastNs) : 0;
        try {
            out.write(String.format(Locale.ROOT, "%.3f,%s,%d,%d,%d,%.0f,%d,%d,%d,%d", (now - startNs) / 1e9, phase, produced,
                    appended, lag, rate, head.seriesCount(), ProcessProbe.heapUsedBytes(), accounting.totalBytes(),
                    ProcessProbe.rssBytes()));
            out.newLine();
            out.flush(); // once a second: the CSV can be watched (tail -f) during a long run
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        lastNs = now;
        lastAppended = appended;
        maxLag = Math.max(maxLag, lag);
        return lag;
    }

    /** The largest lag sampled since the last reset, and resets it. */
    long takeMaxLag() {
        long m = maxLag;
        maxLag = 0;
        return m;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
