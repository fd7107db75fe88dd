package io.sluice.server.format;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * Parses decimal floating-point text in place into the nearest double (round half to even, as
 * {@link Double#parseDouble} and Go's {@code strconv.ParseFloat}), for the text formats. Allocation-free
 * for every input a metrics producer writes in practice: up to 19 significant digits take Clinger's
 * exact fast path or the Eisel-Lemire algorithm (a 128-bit product with a table of powers of five);
 * only the rare inputs those do not decide (more than 19 significant digits that change the result,
 * subnormal results) fall back to {@code Double.parseDouble} on a temporary String.
 *
 * <p>Grammar: {@code [sign] (digits [. [digits]] | . digits) [(e|E) [+|-] digits]}. A leading {@code +}
 * and the special values ({@code inf}, {@code infinity}, {@code nan}, any case; NaN without a sign) are
 * accepted only when the caller asks for them. Hexadecimal floats and digit separators are not
 * accepted. A finite text whose value rounds to infinity is {@link #outOfRange()}; one that underflows
 * parses to a zero or subnormal of its sign, as in Go.
 *
 * <p>Not thread-safe: one per decoder; {@link #value()} holds the result of the last successful parse.
 */
public final class DecimalParser {
    /** Accept a leading '+'. */
    public static final int ALLOW_PLUS = 1;
    /** Accept inf, infinity and nan (any case), as Go's ParseFloat does; NaN parses to {@link #NAN_BITS}. */
    public static final int ALLOW_SPECIALS = 2;

    /**
     * The bits "NaN" parses to: Prometheus' {@code value.NormalNaN} (Go's {@code math.NaN()}), which is not
     * Java's {@code Double.NaN} (0x7ff8000000000000). Text cannot carry the stale marker or other payloads.
     */
    public static final long NAN_BITS = 0x7ff8000000000001L;

    private static final int MAX_MANTISSA_DIGITS = 19;
    private static final long MAX_EXACT_MANTISSA = 1L << 53;
    private static final int MAX_EXACT_POW10 = 22;
    private static final double[] EXACT_POW10 = new double[MAX_EXACT_POW10 + 1];
    /** Below 10^-342 even a 19-digit mantissa is under half the smallest subnormal; above 10^308, infinite. */
    private static final int MIN_EXP10 = -342;
    private static final int MAX_EXP10 = 308;
    /**
     * 128-bit approximations of 5^q, normalized so bit 127 is set, as high and low words: truncated for
     * q >= 0 (exact up to 5^55), and for q < 0 one more than floor(2^b / 5^-q) before truncating, so that
     * the approximation never lies below the true value (Mushtak and Lemire, "Fast number parsing without
     * fallback", 2023, prove that with these the 64x128-bit product always decides the rounding).
     */
    private static final long[] POW5_HI = new long[MAX_EXP10 - MIN_EXP10 + 1];
    private static final long[] POW5_LO = new long[MAX_EXP10 - MIN_EXP10 + 1];
    private static final long UNDECIDED = -1;
    private static final long INFINITY_BITS = 0x7FF0_0000_0000_0000L;
    private static final int EXPONENT_CAP = 100_000;
    /** The last exponents for which a 64-bit mantissa times 5^q can be an exact halfway point. */
    private static final int MIN_ROUND_TO_EVEN_EXP10 = -4;
    private static final int MAX_ROUND_TO_EVEN_EXP10 = 23;

    static {
        double p = 1;
        for (int i = 0; i <= MAX_EXACT_POW10; i++) {
            EXACT_POW10[i] = p;
            p *= 10;
        }
        BigInteger limit = BigInteger.ONE.shiftLeft(128);
        for (int q = MIN_EXP10; q <= MAX_EXP10; q++) {
            BigInteger approximation;
            if (q >= 0) {
                BigInteger power = BigInteger.valueOf(5).pow(q);
                int shift = power.bitLength() - 128;
                approximation = shift > 0 ? power.shiftRight(shift) : power.shiftLeft(-shift);
            } else {
                BigInteger power = BigInteger.valueOf(5).pow(-q);
                int z = power.bitLength();
                int b = q >= -27 ? z + 127 : 2 * z + 128;
                approximation = BigInteger.ONE.shiftLeft(b).divide(power).add(BigInteger.ONE);
                while (approximation.compareTo(limit) >= 0) {
                    approximation = approximation.shiftRight(1);
                }
            }
            POW5_HI[q - MIN_EXP10] = approximation.shiftRight(64).longValue();
            POW5_LO[q - MIN_EXP10] = approximation.longValue();
        }
    }

    private double value;
    private boolean outOfRange;

    /**
     * Parses {@code b[off, off + len)}; returns false on a syntax error or an out-of-range value
     * ({@link #outOfRange()} tells which).
     */
    public boolean parse(byte[] b, int off, int len, int options) {
        outOfRange = false;
        int end = off + len;
        int i = off;
        if (len == 0) {
            return false;
        }
        boolean negative = b[i] == '-';
        if (negative || b[i] == '+') {
            if (!negative && (options & ALLOW_PLUS) == 0) {
                return false;
            }
            i++;
        }
        if (i < end && (options & ALLOW_SPECIALS) != 0 && !isDigit(b[i]) && b[i] != '.') {
            return special(b, i, end, negative, i > off);
        }
        return number(b, off, i, end, negative);
    }

    /** The value of the last successful {@link #parse}. */
    public double value() {
        return value;
    }

    /** Whether the last failed parse was well-formed but rounds to infinity. */
    public boolean outOfRange() {
        return outOfRange;
    }

    private boolean number(byte[] b, int start, int i, int end, boolean negative) {
        long mantissa = 0; // unsigned: up to 19 digits
        int digits = 0;
        int exp10 = 0;
        boolean truncated = false;
        boolean sawDigit = false;
        boolean afterPoint = false;
        for (; i < end; i++) {
            byte c = b[i];
            if (c == '.' && !afterPoint) {
                afterPoint = true;
                continue;
            }
            if (!isDigit(c)) {
                break;
            }
            sawDigit = true;
            int d = c - '0';
            if (digits < MAX_MANTISSA_DIGITS) {
                if (mantissa != 0 || d != 0) { // leading zeros are not significant digits
                    mantissa = mantissa * 10 + d;
                    digits++;
                }
                exp10 -= afterPoint ? 1 : 0;
            } else {
                exp10 += afterPoint ? 0 : 1; // a digit beyond the 19 kept: only its place counts
                truncated |= d != 0;
            }
        }
        if (!sawDigit) {
            return false;
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            boolean negativeExponent = i < end && b[i] == '-';
            if (i < end && (b[i] == '-' || b[i] == '+')) {
                i++;
            }
            if (i == end || !isDigit(b[i])) {
                return false;
            }
            int exponent = 0;
            for (; i < end && isDigit(b[i]); i++) {
                exponent = Math.min(EXPONENT_CAP, exponent * 10 + (b[i] - '0'));
            }
            exp10 += negativeExponent ? -exponent : exponent;
        }
        if (i != end) {
            return false;
        }
        double magnitude = magnitude(mantissa, exp10, truncated, b, start, end);
        if (Double.isInfinite(magnitude)) {
            outOfRange = true;
            return false;
        }
        value = negative ? -magnitude : magnitude;
        return true;
    }

    /** The absolute value of {@code mantissa * 10^exp10}; the text is only used by the rare fallback. */
    private static double magnitude(long mantissa, int exp10, boolean truncated, byte[] b, int start, int end) {
        if (mantissa == 0) {
            return 0;
        }
        if (!truncated && Long.compareUnsigned(mantissa, MAX_EXACT_MANTISSA) <= 0
                && exp10 >= -MAX_EXACT_POW10 && exp10 <= MAX_EXACT_POW10) {
            // Clinger: both operands are exact doubles, so the one rounding of * or / is correct.
            double m = mantissa;
            return exp10 < 0 ? m / EXACT_POW10[-exp10] : m * EXACT_POW10[exp10];
        }
        if (exp10 < MIN_EXP10) {
            return 0;
        }
        if (exp10 > MAX_EXP10) {
            return Double.POSITIVE_INFINITY;
        }
        long bits = eiselLemire(mantissa, exp10);
        if (bits != UNDECIDED && truncated && eiselLemire(mantissa + 1, exp10) != bits) {
            bits = UNDECIDED; // the dropped digits could change the rounding
        }
        if (bits != UNDECIDED) {
            return Double.longBitsToDouble(bits);
        }
        // Rare (subnormal results, or more than 19 digits that matter): the text is ASCII and matches a
        // subset of Java's grammar, so this parses it exactly.
        return Math.abs(Double.parseDouble(new String(b, start, end - start, StandardCharsets.ISO_8859_1)));
    }

    /**
     * The Eisel-Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per Second", 2021, in the form of
     * the fast_float library): multiplies the normalized 64-bit mantissa by the 128-bit approximation of
     * 5^exp10 and reads the double's 53 bits (and a rounding bit) off the top of the product; the power of
     * two is exact. Returns the bits of the positive double, the bits of infinity on overflow, or
     * {@link #UNDECIDED} for a subnormal result.
     */
    static long eiselLemire(long mantissa, int exp10) {
        int leadingZeros = Long.numberOfLeadingZeros(mantissa);
        long w = mantissa << leadingZeros;
        int row = exp10 - MIN_EXP10;
        long hi = Math.unsignedMultiplyHigh(w, POW5_HI[row]);
        long lo = w * POW5_HI[row];
        if ((hi & 0x1FF) == 0x1FF) {
            // The 9 bits below the 55 we keep are all ones: a carry from the low word could reach them.
            long crossHi = Math.unsignedMultiplyHigh(w, POW5_LO[row]);
            lo += crossHi;
            if (Long.compareUnsigned(crossHi, lo) > 0) {
                hi++;
            }
        }
        int upperBit = (int) (hi >>> 63);
        int shift = upperBit + 9;
        long significand = hi >>> shift; // 54 or 55 bits: 53, a rounding bit, maybe one more
        // floor(exp10 * log2(10)) + 63 (217706 / 2^16 approximates log2(10)), plus the bias 1023.
        int exp2 = (int) ((217706L * exp10) >> 16) + 63 + upperBit - leadingZeros + 1023;
        if (exp2 <= 0) {
            return UNDECIDED;
        }
        if (Long.compareUnsigned(lo, 1) <= 0 && exp10 >= MIN_ROUND_TO_EVEN_EXP10 && exp10 <= MAX_ROUND_TO_EVEN_EXP10
                && (significand & 3) == 1 && (significand << shift) == hi) {
            significand &= ~1L; // exactly halfway and the lower neighbour is even: round down
        }
        significand += significand & 1;
        significand >>>= 1;
        if (significand >= 2L << 52) {
            significand = 1L << 52;
            exp2++;
        }
        if (exp2 >= 0x7FF) {
            return INFINITY_BITS;
        }
        return (long) exp2 << 52 | significand & 0x000F_FFFF_FFFF_FFFFL;
    }

    /** inf, infinity (signed or not) or nan (unsigned), any case, as Go's ParseFloat. */
    private boolean special(byte[] b, int i, int end, boolean negative, boolean signed) {
        int len = end - i;
        if (len == 3 && matchesIgnoreCase(b, i, "nan") && !signed) {
            value = Double.longBitsToDouble(NAN_BITS);
            return true;
        }
        if ((len == 3 && matchesIgnoreCase(b, i, "inf")) || (len == 8 && matchesIgnoreCase(b, i, "infinity"))) {
            value = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            return true;
        }
        return false;
    }

    private static boolean matchesIgnoreCase(byte[] b, int i, String lowerCase) {
        for (int k = 0; k < lowerCase.length(); k++) {
            if ((b[i + k] | 0x20) != lowerCase.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }
}
