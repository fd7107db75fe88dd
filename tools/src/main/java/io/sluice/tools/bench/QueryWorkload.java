package io.sluice.tools.bench;

import java.io.IOException;
import java.io.Writer;

/**
 * The data of the PromQL query benchmark (benchmarks/query-vs-prometheus.sh), written both into a Sluice head
 * (through {@link ReplayBenchWriter}) and as an OpenMetrics file for {@code promtool tsdb create-blocks-from
 * openmetrics}, from the same functions, so both stores hold identical samples. Of {@code n} series:
 * <ul>
 *   <li>{@code x}: {@code n / 2} counters {@code x{job="job-<i%10>", instance="i-<i>", env, zone}}; each round adds
 *       {@code 0..99} (a hash of series and round) to the previous value, which starts at {@code i / 2^20} (so no
 *       two counters are equal, and {@code topk} has no ties to break in an order of its own);</li>
 *   <li>{@code h_bucket}: a classic histogram, {@code (n - n/2) / 10} instances × 10 buckets
 *       ({@code le} 0.005 … 2.5, +Inf) {@code h_bucket{job, instance="h-<j>", le}}; each round observes
 *       {@code 0..199} values spread by an exponential distribution whose scale depends on the instance;</li>
 *   <li>{@code info}: 10 series {@code info{job="job-<k>", team="team-<k%4>"} 1} for a {@code group_left} join.</li>
 * </ul>
 * Every value is exact in both stores and in the text file (integers, and multiples of 2^-20 below 2^16). Scrapes are 15 s apart from
 * {@link #START_MS}. Keeps one running total per series, so {@link #value} must be called for rounds
 * 0, 1, 2, ... of each series in order (round by round, or series by series, as {@link #writeOpenMetrics} does);
 * use a fresh instance for each pass. Single-threaded.
 */
public final class QueryWorkload extends LabelledWorkload {
    public static final long SCRAPE_INTERVAL_MS = 15_000;
    /** 2024-01-01T00:00:00Z, the start of a 2 h block of Prometheus' TSDB. */
    public static final long START_MS = 1_704_067_200_000L;
    public static final int JOBS = 10;
    public static final int BUCKETS = 10;
    static final String[] LE = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"};
    private static final String[] ENVS = {"prod", "staging", "dev"};
    private static final String[] ZONES = {"a", "b", "c", "d"};

    private final int counters;
    private final int buckets;
    private final String[] text; // the series' OpenMetrics name and labels
    private final long[] totals;
    private final long[] nextRound;

    public QueryWorkload(int n) {
        if (n < 20 || n > 2_000_000) {
            throw new IllegalArgumentException("series must be 20..2,000,000, was " + n);
        }
        int counters = n / 2;
        int buckets = (n - counters) / BUCKETS * BUCKETS;
        int total = counters + buckets + JOBS;
        super(total, (b, s) -> {
            String[] pairs = pairs(s, counters, buckets);
            for (int p = 0; p < pairs.length; p += 2) {
                b.add(pairs[p], pairs[p + 1]);
            }
        });
        this.counters = counters;
        this.buckets = buckets;
        text = new String[total];
        totals = new long[total];
        nextRound = new long[total];
        for (int s = 0; s < total; s++) {
            String[] pairs = pairs(s, counters, buckets);
            StringBuilder t = new StringBuilder(pairs[1]).append('{');
            for (int p = 2; p < pairs.length; p += 2) {
                t.append(p > 2 ? "," : "").append(pairs[p]).append("=\"").append(pairs[p + 1]).append('"');
            }
            text[s] = t.append('}').toString();
        }
    }

    /** Name/value pairs of series {@code s}, {@code __name__} first, with {@code counters} counters and {@code buckets} buckets. */
    private static String[] pairs(int s, int counters, int buckets) {
        if (s < counters) {
            return new String[] {"__name__", "x", "job", "job-" + s % JOBS, "instance", "i-" + s,
                    "env", ENVS[s % 3], "zone", ZONES[s % 4]};
        }
        if (s < counters + buckets) {
            int j = (s - counters) / BUCKETS;
            return new String[] {"__name__", "h_bucket", "job", "job-" + j % JOBS, "instance", "h-" + j,
                    "le", LE[(s - counters) % BUCKETS]};
        }
        int k = s - counters - buckets;
        return new String[] {"__name__", "info", "job", "job-" + k, "team", "team-" + k % 4};
    }

    @Override
    public long scrapeTimeMs(long round) {
        return START_MS + round * SCRAPE_INTERVAL_MS;
    }

    @Override
    public double value(int i, long round) {
        if (nextRound[i] != round) {
            throw new IllegalStateException("series " + i + ": round " + round + " asked, " + nextRound[i] + " expected");
        }
        nextRound[i]++;
        if (i >= counters + buckets) {
            return 1;
        }
        totals[i] += increment(i, round);
        // Counters carry i / 2^20 on top, so no two hold the same value and topk has no ties to break.
        return i < counters ? totals[i] + i / 1_048_576.0 : totals[i];
    }

    /** What series {@code i} adds at {@code round}: a pure function, so both passes agree. */
    private long increment(int i, long round) {
        if (i < counters) {
            return Long.remainderUnsigned(mix(i, round), 100);
        }
        int j = (i - counters) / BUCKETS;
        int bucket = (i - counters) % BUCKETS;
        long observed = Long.remainderUnsigned(mix(~(long) j, round), 200);
        if (bucket == BUCKETS - 1) {
            return observed;
        }
        double scale = 0.05 * (1 + j % 10);
        return (long) Math.floor(observed * -Math.expm1(-Double.parseDouble(LE[bucket]) / scale));
    }

    /** SplitMix64's finaliser over the series and round. */
    private static long mix(long series, long round) {
        long z = series * 0x9E3779B97F4A7C15L + round * 0xC2B2AE3D27D4EB4FL + 0x165667B19E3779F9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Writes {@code rounds} samples of every series as OpenMetrics text (series by series, timestamps in
     * seconds, untyped, {@code # EOF} at the end) for {@code promtool tsdb create-blocks-from openmetrics}.
     * Uses this instance's running totals: call it on a fresh instance.
     */
    public void writeOpenMetrics(Writer out, long rounds) throws IOException {
        StringBuilder line = new StringBuilder(256);
        for (int s = 0; s < seriesCount(); s++) {
            for (long r = 0; r < rounds; r++) {
                double v = value(s, r);
                long ms = scrapeTimeMs(r);
                line.setLength(0);
                line.append(text[s]).append(' ');
                if (v == Math.rint(v)) {
                    line.append((long) v);
                } else {
                    line.append(v); // the shortest decimal that reads back as the same double
                }
                line.append(' ').append(ms / 1000);
                if (ms % 1000 != 0) {
                    line.append('.').append(String.format("%03d", ms % 1000));
                }
                out.append(line).append('\n');
            }
        }
        out.append("# EOF\n");
    }
}
