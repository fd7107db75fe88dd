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
 *
 * <p>With late samples ({@link #withLateSamples}) the same samples arrive as a producer that does not
 * key every series, a collector that retries and a late pipeline deliver them. Series {@code s} is
 * of kind {@code (s / partitions) % 4} (so every partition holds every kind):
 * <ul>
 *   <li>{@link #IN_ORDER}: as above;
 *   <li>{@link #UNKEYED}: sample {@code k} is written to partition {@code (s + k) % partitions}, so
 *       one series is spread over every partition, read in whatever order the fetches return;
 *   <li>{@link #DELAYED}: every fifth sample ({@code k % 5 == 0}) is held back 1 to 3 rounds and
 *       written in round {@code k + delay} after that round's own sample, in the same record: late
 *       for certain, whatever the consumer does;
 *   <li>{@link #REPEATED}: round {@code r} also holds an exact repeat of sample {@code r - 2} in
 *       partition {@code (s + 1) % partitions}, before or after the original depending on the read
 *       order: stored once either way.
 * </ul>
 * "Rounds 0 to K-1 were produced" then says which samples must be stored ({@link #producedBy}): all
 * up to K-1 but the held-back ones whose round is K or later. Timestamps only go back a few rounds
 * within a partition, but partitions can lag each other by hundreds of rounds after a restart, so
 * servers fed this set run with an out-of-order window longer than the whole set.
 */
final class KnownSamples implements RoundSource {
    static final String METRIC = "e2e_samples";
    static final long START_MS = 1_763_800_000_000L;
    static final long STEP_MS = 15_000;
    /** Kinds of series in a set with late samples. */
    static final int IN_ORDER = 0;
    static final int UNKEYED = 1;
    static final int DELAYED = 2;
    static final int REPEATED = 3;
    /** Repeats in {@link #REPEATED} series are of the sample this many rounds before. */
    private static final int REPEAT_LAG = 2;

    private final int series;
    private final int partitions;
    private final boolean late;
    private final byte[][] labels;
    private final NativeBatchEncoder encoder = new NativeBatchEncoder(4096, false, true);

    KnownSamples(int series, int partitions) {
        this(series, partitions, false);
    }

    private KnownSamples(int series, int partitions, boolean late) {
        this.series = series;
        this.partitions = partitions;
        this.late = late;
        this.labels = new byte[series][];
        for (int s = 0; s < series; s++) {
            labels[s] = CanonicalLabels.encode("__name__", METRIC, "job", "crash", "series", seriesName(s));
        }
    }

    /** The same series and samples, delivered with late samples, spread series and exact repeats (see above). */
    static KnownSamples withLateSamples(int series, int partitions) {
        return new KnownSamples(series, partitions, true);
    }

    int series() {
        return series;
    }

    @Override
    public int partitions() {
        return partitions;
    }

    boolean hasLateSamples() {
        return late;
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

    /** Series {@code s}'s kind in a set with late samples. */
    int kind(int s) {
        return late ? (s / partitions) % 4 : IN_ORDER;
    }

    /** Rounds sample {@code k} of series {@code s} is held back (0: written in round {@code k}). */
    int delay(int s, int k) {
        return kind(s) == DELAYED && k % 5 == 0 ? 1 + (s / (4 * partitions) + k / 5) % 3 : 0;
    }

    /** Which samples rounds {@code 0..rounds-1} hold. */
    SampleTally.Produced producedBy(int rounds) {
        return (s, k) -> k + delay(s, k) < rounds;
    }

    /** The record of {@code partition} in {@code round}. Not thread-safe (one encoder). */
    @Override
    public byte[] record(int partition, int round) {
        encoder.reset(timestampMs(round));
        for (int s = 0; s < series; s++) {
            switch (kind(s)) {
                case UNKEYED -> {
                    if ((s + round) % partitions == partition) {
                        series(s, round, -1);
                    }
                }
                case DELAYED -> {
                    if (s % partitions == partition) {
                        series(s, delay(s, round) == 0 ? round : -1, heldBackUntil(s, round));
                    }
                }
                case REPEATED -> {
                    if (s % partitions == partition) {
                        series(s, round, -1);
                    } else if ((s + 1) % partitions == partition && round >= REPEAT_LAG) {
                        series(s, round - REPEAT_LAG, -1);
                    }
                }
                default -> {
                    if (s % partitions == partition) {
                        series(s, round, -1);
                    }
                }
            }
        }
        int length = encoder.finish();
        return Arrays.copyOf(encoder.buffer(), length);
    }

    /** The held-back sample of series {@code s} written in {@code round}, or -1. */
    private int heldBackUntil(int s, int round) {
        for (int k = round - 3; k < round; k++) {
            if (k >= 0 && k + delay(s, k) == round && delay(s, k) > 0) {
                return k;
            }
        }
        return -1;
    }

    /** Series {@code s} with sample {@code first} then sample {@code second} (either -1: none). */
    private void series(int s, int first, int second) {
        if (first < 0 && second < 0) {
            return;
        }
        encoder.beginSeries(labels[s]);
        if (first >= 0) {
            encoder.sample(timestampMs(first), value(s, first));
        }
        if (second >= 0) {
            encoder.sample(timestampMs(second), value(s, second));
        }
        encoder.endSeries();
    }
}
