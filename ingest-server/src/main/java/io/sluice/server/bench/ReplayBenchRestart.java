package io.sluice.server.bench;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.ShardStats;
import io.sluice.core.head.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.metrics.HeadTotals;
import java.io.IOException;
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

    /** What the head holds after replay. */
    public record Result(long samples, long series, long records, long malformedRecords, double replaySeconds) {
        /** One line, {@code key=value} pairs, that the benchmark parent parses ({@link #parse}). */
        public String format() {
            return "replay_done samples=" + samples + " series=" + series + " records=" + records
                    + " malformed_records=" + malformedRecords + " replay_s=" + replaySeconds;
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
                    Double.parseDouble(fields.get("replay_s")));
        }
    }

    /** Replays the head at {@code options} and closes it. */
    public static Result run(HeadOptions options) throws IOException {
        long t0 = System.nanoTime();
        Head head = new Head(options, new StreamRegistry(), new MemoryAccounting());
        try {
            head.start();
            double seconds = (System.nanoTime() - t0) / 1e9;
            return new Result(HeadTotals.sum(head, ShardStats.Counter.REPLAYED_SAMPLES), head.seriesCount(),
                    HeadTotals.sum(head, ShardStats.Counter.REPLAYED_RECORDS), HeadTotals.sum(head, ShardStats.Counter.REPLAY_MALFORMED_RECORDS), seconds);
        } finally {
            head.close();
        }
    }

}
