package io.sluice.core.chunk;

import java.util.SplittableRandom;

/** Seeded sample sequences for round-trip, concurrency and allocation tests. */
final class SampleShapes {
    /** Bits that must survive exactly: ±0, ±Inf, NaN payloads, the stale marker, subnormals, extremes. */
    static final long[] SPECIAL_VALUE_BITS = {
        0x0000000000000000L, 0x8000000000000000L, 0x7ff0000000000000L, 0xfff0000000000000L,
        0x7ff8000000000000L, 0x7ff8000000000001L, 0xfff8000000000000L, 0x7ff4000000000000L,
        0x7fffffffffffffffL, 0xffffffffffffffffL, 0x7ff0000000000002L, 0x0000000000000001L,
        0x800fffffffffffffL, 0x7fefffffffffffffL, 0xffefffffffffffffL, 0x0010000000000000L,
    };

    enum Timestamps { REGULAR, JITTERED, BIG_JUMPS, NEGATIVE, ANY }

    enum Values { CONSTANT, COUNTER, GAUGE, RANDOM_BITS, SPECIAL }

    final long[] timestampsMs;
    final long[] valueBits;

    private SampleShapes(int count) {
        timestampsMs = new long[count];
        valueBits = new long[count];
    }

    static SampleShapes generate(long seed, int count, Timestamps timestamps, Values values) {
        SplittableRandom random = new SplittableRandom(seed);
        SampleShapes shapes = new SampleShapes(count);
        long t = timestamps == Timestamps.NEGATIVE ? -1_700_000_000_000L + random.nextLong(1_000_000) : 1_700_000_000_000L;
        double v = random.nextDouble(1000);
        for (int i = 0; i < count; i++) {
            t = nextTimestamp(random, timestamps, t);
            shapes.timestampsMs[i] = t;
            shapes.valueBits[i] = nextValue(random, values, v, i);
            v = Double.longBitsToDouble(shapes.valueBits[i]);
        }
        return shapes;
    }

    /** A random pick among all shapes: what the property test sweeps. */
    static SampleShapes random(long seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        Timestamps timestamps = Timestamps.values()[random.nextInt(Timestamps.values().length)];
        Values values = Values.values()[random.nextInt(Values.values().length)];
        return generate(random.nextLong(), count, timestamps, values);
    }

    private static long nextTimestamp(SplittableRandom random, Timestamps shape, long previous) {
        return switch (shape) {
            case REGULAR -> previous + 15_000;
            case JITTERED, NEGATIVE -> previous + 15_000 + random.nextInt(-50, 50);
            case BIG_JUMPS -> previous + switch (random.nextInt(6)) {
                case 0 -> 15_000;
                case 1 -> random.nextLong(-10_000, 10_000);
                case 2 -> random.nextLong(-600_000, 600_000);
                case 3 -> random.nextLong(-(1L << 40), 1L << 40);
                case 4 -> 1L << (8 + random.nextInt(50));
                default -> -(1L << (8 + random.nextInt(50)));
            };
            case ANY -> random.nextLong();
        };
    }

    private static long nextValue(SplittableRandom random, Values shape, double previous, int index) {
        return switch (shape) {
            case CONSTANT -> Double.doubleToRawLongBits(42.0);
            case COUNTER -> Double.doubleToRawLongBits(index == 0 ? 0 : previous + random.nextInt(0, 1000));
            case GAUGE -> Double.doubleToRawLongBits(Math.round((50 + 5 * Math.sin(index / 10.0) + random.nextGaussian()) * 100) / 100.0);
            case RANDOM_BITS -> random.nextLong();
            case SPECIAL -> random.nextInt(4) == 0 ? random.nextLong() : SPECIAL_VALUE_BITS[random.nextInt(SPECIAL_VALUE_BITS.length)];
        };
    }
}
