package io.sluice.server.query;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Sample values as Prometheus writes them: Go's {@code strconv.FormatFloat(v, 'f', -1, 64)} — the
 * shortest decimal that reads back as the same double, in plain notation (never an exponent:
 * {@code 1e21} is {@code 1000000000000000000000}, {@code 1e-7} is {@code 0.0000001}), {@code -0} for
 * negative zero — and {@code NaN}, {@code +Inf}, {@code -Inf} for the special values.
 *
 * <p>Java's {@link Double#toString} (JDK 19+) gives the shortest round-trip digits too, with one
 * difference: where one digit would do, it picks the closest two-digit decimal instead
 * ({@code 4.9E-324} where Go writes {@code 5e-324}); that only happens for subnormals and is
 * corrected here. Integers below 2^53 (most counters) take a path that does not allocate.
 */
public final class PromFloat {
    private static final double EXACT_INTEGER_LIMIT = 0x1p53;

    private PromFloat() {
    }

    /** The value as Prometheus' JSON writes it inside its quotes. */
    public static String format(double v) {
        StringBuilder out = new StringBuilder(24);
        append(v, out);
        return out.toString();
    }

    /** Appends {@link #format}'s text to {@code out}. */
    public static void append(double v, StringBuilder out) {
        if (isSpecial(v)) {
            out.append(special(v));
        } else if (isSmallInteger(v)) {
            if (v == 0 && Double.doubleToRawLongBits(v) != 0) {
                out.append('-');
            }
            out.append((long) v);
        } else {
            out.append(plainShortest(v));
        }
    }

    /** NaN and the infinities: Prometheus writes them as strings even where other values are numbers. */
    public static boolean isSpecial(double v) {
        return Double.isNaN(v) || Double.isInfinite(v);
    }

    /** {@code NaN}, {@code +Inf} or {@code -Inf}. */
    public static String special(double v) {
        return Double.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
    }

    /** Whole numbers whose text is their {@code long} digits. */
    static boolean isSmallInteger(double v) {
        return Math.abs(v) < EXACT_INTEGER_LIMIT && v == Math.rint(v);
    }

    private static String plainShortest(double v) {
        BigDecimal shortest = new BigDecimal(Double.toString(v));
        if (shortest.precision() == 2) {
            shortest = oneDigitIfRoundTrips(v, shortest);
        }
        return shortest.stripTrailingZeros().toPlainString();
    }

    /** Go's shortest: a one-digit decimal that reads back as {@code v}, the closest of those, if any. */
    private static BigDecimal oneDigitIfRoundTrips(double v, BigDecimal twoDigits) {
        BigDecimal exact = new BigDecimal(v);
        BigDecimal best = null;
        for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
            BigDecimal candidate = twoDigits.round(new MathContext(1, mode));
            if (Double.parseDouble(candidate.toString()) == v
                    && (best == null || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
                best = candidate;
            }
        }
        return best != null ? best : twoDigits;
    }
}
