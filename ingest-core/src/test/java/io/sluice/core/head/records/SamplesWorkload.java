package io.sluice.core.head.records;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded SAMPLES records for the decoder tests: values that need every control byte of
 * {@link ValueCodec} (SAME, every XOR window 0xLN, decimals with 0..9 places, NaN payloads, -0.0,
 * the stale marker, ±Inf, random bits), series orders that follow the prediction and break it, and
 * records spread over several WAL segments (the state resets at each).
 */
final class SamplesWorkload {
    record Sample(int id, long t, long bits) { }

    /** One record: the WAL segment it lies in and its samples. */
    record Record(int walSegment, List<Sample> samples) { }

    static final long STALE_MARKER = 0x7ff0000000000002L;
    private static final long[] SPECIAL = {
        STALE_MARKER, Double.doubleToRawLongBits(-0.0), 0L, Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
        Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), Double.doubleToRawLongBits(Double.NaN),
        0x7ff8000000000001L, 0xfff0000000000123L, 0x7ff7ffffffffffffL, 1L, Long.MIN_VALUE, -1L,
    };

    private SamplesWorkload() {
    }

    static List<Record> records(long seed, int recordCount, int seriesCount) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] last = new long[seriesCount];
        int[] order = random.ints(0, seriesCount).distinct().limit(Math.max(1, seriesCount / 2)).toArray();
        List<Record> records = new ArrayList<>();
        long t = 1_700_000_000_000L;
        int walSegment = 0;
        for (int r = 0; r < recordCount; r++) {
            if (random.nextInt(6) == 0) {
                walSegment++; // a segment change: prediction and previous values reset
            }
            List<Sample> samples = new ArrayList<>();
            int n = 1 + random.nextInt(300);
            for (int i = 0; i < n; i++) {
                int id = random.nextInt(4) == 0 ? random.nextInt(seriesCount) : order[i % order.length]; // miss or hit
                t += random.nextInt(4) == 0 ? random.nextLong(-1_000_000, 100_000_000) : (i % 7 == 0 ? 15_000 : 0);
                long bits = value(random, last[id]);
                last[id] = bits;
                samples.add(new Sample(id, t, bits));
            }
            records.add(new Record(walSegment, samples));
        }
        return records;
    }

    /** A value against the series' previous bits: picks one control-byte family at random. */
    private static long value(SplittableRandom random, long previous) {
        return switch (random.nextInt(6)) {
            case 0 -> previous; // SAME (if the previous value is current in the encoder)
            case 1 -> previous ^ window(random);
            case 2 -> {
                int places = random.nextInt(10);
                long m = random.nextLong(-(1L << random.nextInt(1, 54)), 1L << random.nextInt(1, 54));
                yield Double.doubleToRawLongBits(m / Math.pow(10, places)); // 10^places is exact in a double
            }
            case 3 -> SPECIAL[random.nextInt(SPECIAL.length)];
            case 4 -> Double.doubleToRawLongBits(Math.round(random.nextDouble(-1e6, 1e6) * 100) / 100.0);
            default -> random.nextLong();
        };
    }

    /** A non-zero XOR with L leading and T trailing zero bytes, its first and last significant bytes non-zero. */
    private static long window(SplittableRandom random) {
        int leading = random.nextInt(8);
        int significant = random.nextInt(1, 9 - leading);
        long x = random.nextLong() | 0x80L | (1L << ((significant - 1) * 8)); // ends and starts non-zero
        x &= significant == 8 ? -1L : (1L << (significant * 8)) - 1;
        x |= 1L;
        return x << ((8 - leading - significant) * 8);
    }
}
