package io.sluice.tools.bench;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.metrics.HeadTotals;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The measured half of the replay benchmark, run in a fresh JVM: opens a head on the benchmark's
 * directory (every shard replays its WAL, in parallel) and reports what it replayed. The process'
 * wall and CPU time and peak RSS are measured from outside ({@link TimeVerbose}); the figures here are
 * from inside (start of replay to ready) and let the caller check the count.
 */
public final class ReplayBenchRestart {
    private ReplayBenchRestart() {
    }

    /**
     * What the head holds after replay, and this process' memory right after it (from
     * /proc/self/status, -1 where unavailable): anonymous (heap, off-heap chunks) and file-backed
     * (mapped WAL segments) resident kB, the peak resident set so far, the head's accounted off-heap
     * kB (series, labels, chunks) and the heap in use.
     */
    public record Result(long samples, long series, long records, long malformedRecords, double replaySeconds,
                         long rssAnonKb, long rssFileKb, long peakRssKb, long offHeapKb, long heapUsedKb) {
        /** One line, {@code key=value} pairs, that the benchmark parent parses ({@link #parse}). */
        public String format() {
            return "replay_done samples=" + samples + " series=" + series + " records=" + records
                    + " malformed_records=" + malformedRecords + " replay_s=" + replaySeconds
                    + " rss_anon_kb=" + rssAnonKb + " rss_file_kb=" + rssFileKb + " peak_rss_kb=" + peakRssKb
                    + " offheap_kb=" + offHeapKb + " heap_used_kb=" + heapUsedKb;
        }

        /** Reads a line written by {@link #format()}; null if {@code line} is not one. */
        public static Result parse(String line) {
            if (!line.startsWith("replay_done ")) {
                return null;
            }
            Map<String, String> fields = new HashMap<>();
            for (String pair : line.substring("replay_done ".length()).split(" ")) {
                int eq = pair.indexOf('=');
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            return new Result(Long.parseLong(fields.get("samples")), Long.parseLong(fields.get("series")),
                    Long.parseLong(fields.get("records")), Long.parseLong(fields.get("malformed_records")),
                    Double.parseDouble(fields.get("replay_s")), Long.parseLong(fields.getOrDefault("rss_anon_kb", "-1")),
                    Long.parseLong(fields.getOrDefault("rss_file_kb", "-1")), Long.parseLong(fields.getOrDefault("peak_rss_kb", "-1")),
                    Long.parseLong(fields.getOrDefault("offheap_kb", "-1")), Long.parseLong(fields.getOrDefault("heap_used_kb", "-1")));
        }
    }

    /** Replays the head at {@code options} and closes it. */
    public static Result run(HeadOptions options) throws IOException {
        long t0 = System.nanoTime();
        MemoryAccounting accounting = new MemoryAccounting();
        Head head = new Head(options, new StreamRegistry(), accounting);
        head.skipCheckpointOnClose(); // the data directory stays as it was: the restart can be timed again
        try {
            head.start();
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Long> status = procStatusKb();
            long held = HeadTotals.sum(head, ShardStats.Counter.REPLAYED_SAMPLES) + HeadTotals.sum(head, ShardStats.Counter.RESTORED_SAMPLES);
            return new Result(held, head.seriesCount(),
                    HeadTotals.sum(head, ShardStats.Counter.REPLAYED_RECORDS), HeadTotals.sum(head, ShardStats.Counter.REPLAY_MALFORMED_RECORDS), seconds,
                    status.getOrDefault("RssAnon", -1L), status.getOrDefault("RssFile", -1L), status.getOrDefault("VmHWM", -1L),
                    accounting.totalBytes() / 1024, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024);
        } finally {
            head.close();
        }
    }


    /** The "kB" fields of /proc/self/status (Linux); empty elsewhere. */
    static Map<String, Long> procStatusKb() {
        Map<String, Long> kb = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                String[] parts = line.split("\\s+");
                if (parts.length == 3 && parts[2].equals("kB") && parts[0].endsWith(":")) {
                    kb.put(parts[0].substring(0, parts[0].length() - 1), Long.parseLong(parts[1]));
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of(); // not Linux: the figures are reported as -1
        }
        return kb;
    }
}
