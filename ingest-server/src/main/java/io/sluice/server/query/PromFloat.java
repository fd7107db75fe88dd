package io.sluice.server.query;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Sample values as Prometheus' JSON writes them (its {@code jsonutil.MarshalFloat}): Go's
 * {@code strconv.FormatFloat} with the shortest decimal that reads back as the same double, in plain
 * notation ({@code 'f'}) from 1e-6 up to 1e21 and in exponent notation ({@code 'e'}) outside it
 * ({@code 1e-07}, {@code 4.5e+21}, {@code 5e-324}), {@code 0} and {@code -0} for the zeros — and
 * {@code NaN}, {@code +Inf}, {@code -Inf} for the special values.
 *
 * <p>Java's {@link Double#toString} (JDK 19+) gives the shortest round-trip digits too, with one
 * difference: where one digit would do, it picks the closest two-digit decimal instead
 * ({@code 4.9E-324} where Go writes {@code 5e-324}); for a normal double the closest two-digit
 * decimal is then {@code d.0}, so this only changes subnormals, which are corrected here (with
 * BigDecimal: rare). Other values are rewritten from Java's text in place in the caller's builder;
 * integers below 2^53 (most counters) are written as longs.
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

    /**
     * Go's {@code strconv.FormatFloat(v, 'f', -1, 64)} at every magnitude ({@code 1e-07} is
     * {@code 0.0000001}), {@code NaN}, {@code +Inf}, {@code -Inf}: the text of a scalar result's value,
     * which Prometheus writes through its {@code Scalar.MarshalJSON}, not its sample codec.
     */
    public static void appendFixed(double v, StringBuilder out) {
        if (isSpecial(v)) {
            out.append(special(v));
        } else if (v != 0 && Math.abs(v) < Double.MIN_NORMAL) {
            out.append(subnormalShortest(v).toPlainString());
        } else if (isSmallInteger(v)) {
            append(v, out);
        } else {
            appendPlain(v, out);
        }
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
        } else if (Math.abs(v) < 1e-6 || Math.abs(v) >= 1e21) {
            appendExponent(v, out);
        } else {
            appendPlain(v, out);
        }
    }

    /**
     * Go's {@code 'e'} form: the shortest digits as {@code d.ddd}, then {@code e}, the exponent's sign
     * and at least two digits. Java's text of such a value is already {@code d.dddE-n} (one digit
     * before the point); a subnormal's digits are corrected first.
     */
    private static void appendExponent(double v, StringBuilder out) {
        int start = out.length();
        if (Math.abs(v) < Double.MIN_NORMAL) {
            BigDecimal shortest = subnormalShortest(v);
            String digits = shortest.unscaledValue().abs().toString();
            out.append(v < 0 ? "-" : "").append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            appendExponentSuffix(digits.length() - 1 - shortest.scale(), out);
            return;
        }
        out.append(v);
        int e = out.indexOf("E", start);
        int exponent = Integer.parseInt(out, e + 1, out.length(), 10);
        out.setLength(e);
        while (out.charAt(out.length() - 1) == '0') {
            out.setLength(out.length() - 1);
        }
        if (out.charAt(out.length() - 1) == '.') {
            out.setLength(out.length() - 1);
        }
        appendExponentSuffix(exponent, out);
    }

    private static void appendExponentSuffix(int exponent, StringBuilder out) {
        out.append('e').append(exponent < 0 ? '-' : '+');
        if (Math.abs(exponent) < 10) {
            out.append('0');
        }
        out.append(Math.abs(exponent));
    }

    /** Java's shortest text ({@code 1.25E-5}, {@code 0.001}), rewritten in place to plain notation (1e-6 to 1e21). */
    private static void appendPlain(double v, StringBuilder out) {
        int start = out.length();
        out.append(v);
        int digits = v < 0 ? start + 1 : start;
        int exponent = 0;
        int e = out.indexOf("E", digits);
        if (e >= 0) {
            exponent = Integer.parseInt(out, e + 1, out.length(), 10);
            out.setLength(e);
        }
        int point = out.indexOf(".", digits);
        out.deleteCharAt(point);
        int pointPos = point - digits + exponent; // digits before the decimal point
        while (out.length() > digits && out.charAt(digits) == '0') {
            out.deleteCharAt(digits);
            pointPos--;
        }
        while (out.length() > digits && out.charAt(out.length() - 1) == '0') {
            out.setLength(out.length() - 1);
        }
        int n = out.length() - digits;
        if (pointPos <= 0) {
            out.insert(digits, "0.");
            for (int i = 0; i < -pointPos; i++) {
                out.insert(digits + 2, '0');
            }
        } else if (pointPos >= n) {
            for (int i = n; i < pointPos; i++) {
                out.append('0');
            }
        } else {
            out.insert(digits + pointPos, '.');
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

    /** A subnormal's shortest decimal as Go picks it (Java's two digits where one reads back), no trailing zeros. */
    private static BigDecimal subnormalShortest(double v) {
        return oneDigitIfRoundTrips(v, new BigDecimal(Double.toString(v))).stripTrailingZeros();
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
