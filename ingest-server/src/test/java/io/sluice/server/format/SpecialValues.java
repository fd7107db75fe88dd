package io.sluice.server.format;

import java.util.Random;

/** Sample values and timestamps that a decoder must carry bit-exactly, for the seeded random tests. */
public final class SpecialValues {
    /** Prometheus' stale marker: a signalling NaN. */
    public static final long STALE_NAN_BITS = 0x7ff0000000000002L;

    private static final long[] VALUE_BITS = {
        STALE_NAN_BITS,
        0x7ff8000000000001L,                      // quiet NaN with a payload
        0xfff8000000000000L,                      // negative quiet NaN
        0x7ff0000000000001L,                      // signalling NaN, smallest payload
        Double.doubleToRawLongBits(Double.NaN),
        Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
        Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
        Double.doubleToRawLongBits(-0.0),
        0L,
        Double.doubleToRawLongBits(Double.MIN_VALUE),   // smallest subnormal
        0x000fffffffffffffL,                      // largest subnormal
        0x800fffffffffffffL,                      // negative subnormal
        Double.doubleToRawLongBits(Double.MAX_VALUE),
        Double.doubleToRawLongBits(1.0),
    };

    private static final long[] TIMESTAMPS_MS = {
        0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, -1_700_000_000_000L, 1_700_000_000_000L, 127, 128, -64, 63,
    };

    private SpecialValues() {
    }

    /** Half special values, half random bit patterns (which hit many NaN payloads too). */
    public static double value(Random random) {
        int pick = random.nextInt(VALUE_BITS.length * 2);
        return Double.longBitsToDouble(pick < VALUE_BITS.length ? VALUE_BITS[pick] : random.nextLong());
    }

    /** Special timestamps, random 64-bit ones and realistic scrape times. */
    public static long timestampMs(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> TIMESTAMPS_MS[random.nextInt(TIMESTAMPS_MS.length)];
            case 1 -> random.nextLong();
            default -> 1_763_800_000_000L + random.nextInt(1_000_000) * 15L;
        };
    }

    /** Label text: ASCII, multi-byte UTF-8 (2, 3 and 4 bytes), empty or long. */
    public static String text(Random random) {
        return switch (random.nextInt(7)) {
            case 0 -> "";
            case 1 -> "grüße-" + random.nextInt(100);
            case 2 -> "标签" + random.nextInt(100);
            case 3 -> "🙂" + random.nextInt(10);
            case 4 -> "x".repeat(200 + random.nextInt(300));
            default -> "value_" + random.nextInt(1000);
        };
    }
}
