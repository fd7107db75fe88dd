package io.sluice.e2e;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import java.util.Arrays;

/**
 * The known data set: {@code series} series {@code e2e_samples{job="crash",series="sNNNN"}}; series
 * {@code s} lives in partition {@code s % partitions} (so its samples arrive in time order) and its
 * sample {@code k} has timestamp {@code START_MS + k * 15 000} and value {@code s * 1 000 000 + k}
 * (an integer: exact in any decimal rendering). Round {@code k} is one {@code sluice} native batch
 * record per partition holding sample {@code k} of each of the partition's series. So "rounds 0 to
 * K-1 were produced" says exactly which samples must be stored, once each.
 */
final class KnownSamples implements RoundSource {
    static final String METRIC = "e2e_samples";
    static final long START_MS = 1_763_800_000_000L;
    static final long STEP_MS = 15_000;

    private final int series;
    private final int partitions;
    private final byte[][] labels;
    private final NativeBatchEncoder encoder = new NativeBatchEncoder(4096, false, true);

    KnownSamples(int series, int partitions) {
        this.series = series;
        this.partitions = partitions;
        this.labels = new byte[series][];
        for (int s = 0; s < series; s++) {
            labels[s] = CanonicalLabels.encode("__name__", METRIC, "job", "crash", "series", seriesName(s));
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

    static long timestampMs(int round) {
        return START_MS + round * STEP_MS;
    }

    static double value(int s, int round) {
        return s * 1_000_000.0 + round;
    }

    /** The record of {@code partition} in {@code round}. Not thread-safe (one encoder). */
    @Override
    public byte[] record(int partition, int round) {
        long t = timestampMs(round);
        encoder.reset(t);
        for (int s = partition; s < series; s += partitions) {
            encoder.beginSeries(labels[s]);
            encoder.sample(t, value(s, round));
            encoder.endSeries();
        }
        int length = encoder.finish();
        return Arrays.copyOf(encoder.buffer(), length);
    }
}
