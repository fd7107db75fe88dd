package io.sluice.e2e;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import java.util.Arrays;

/**
 * A data set whose producer does not key by series: series {@code e2e_spread{job="job-<s % 3>",
 * series="sNNNN"}} is written to partition {@code s % P} before round {@code moveRound} and to
 * partition {@code (s + SHIFT) % P} from then on (as a producer that changes its partitioner, or a
 * round-robin one, does), so a series' samples sit in two partitions — usually owned by two instances
 * of the group. Sample {@code k}: timestamp {@code START_MS + 15 s·k}, value {@code s·10⁶ + k}, a
 * counter that rises by 1 per 15 s. Within one partition a series' samples are in time order, and
 * the test produces the rounds from {@code moveRound} on only once the earlier ones are consumed,
 * so no instance ever sees a series' samples out of order (which a head rejects, as Prometheus does).
 */
final class SpreadSamples implements RoundSource {
    static final String METRIC = "e2e_spread";
    static final long START_MS = 1_763_800_000_000L;
    static final long STEP_MS = 15_000;
    static final int JOBS = 3;
    private static final int SHIFT = 5;

    private final int series;
    private final int partitions;
    private final int moveRound;
    private final byte[][] labels;
    private final NativeBatchEncoder encoder = new NativeBatchEncoder(4096, false, true);

    SpreadSamples(int series, int partitions, int moveRound) {
        this.series = series;
        this.partitions = partitions;
        this.moveRound = moveRound;
        this.labels = new byte[series][];
        for (int s = 0; s < series; s++) {
            labels[s] = CanonicalLabels.encode("__name__", METRIC, "job", job(s), "series", seriesName(s));
        }
    }

    int series() {
        return series;
    }

    @Override
    public int partitions() {
        return partitions;
    }

    static String seriesName(int s) {
        return String.format("s%04d", s);
    }

    static String job(int s) {
        return "job-" + (s % JOBS);
    }

    static long timestampMs(int round) {
        return START_MS + round * STEP_MS;
    }

    static double value(int s, int round) {
        return s * 1_000_000.0 + round;
    }

    int partitionOf(int s, int round) {
        return round < moveRound ? s % partitions : (s + SHIFT) % partitions;
    }

    @Override
    public byte[] record(int partition, int round) {
        long t = timestampMs(round);
        encoder.reset(t);
        for (int s = 0; s < series; s++) {
            if (partitionOf(s, round) == partition) {
                encoder.beginSeries(labels[s]);
                encoder.sample(t, value(s, round));
                encoder.endSeries();
            }
        }
        int length = encoder.finish();
        return Arrays.copyOf(encoder.buffer(), length);
    }
}
