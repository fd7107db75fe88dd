package io.sluice.promql.eval.kernels;

/**
 * Go's {@code math.Pow}, {@code Exp} and {@code Log} bit for bit, as Prometheus computes PromQL's {@code ^} on amd64: an integer
 * exponent by repeated squaring of the mantissa, a fractional one through {@code Exp(yf * Log(x))} with
 * Go's amd64 {@code Exp} (its FMA variant, which Go picks on every x86 CPU with AVX and FMA) and
 * {@code Log}. Java's {@link Math#pow} is correctly rounded or nearly so; Go's is not, and the last bit
 * shows in {@code %}, comparisons and {@code count_values} labels of large powers. Written from the
 * algorithms' descriptions in Go's sources (pow.go, exp_amd64.s, log_amd64.s), which run on plain IEEE
 * double operations (and fused multiply-adds, {@link Math#fma}).
 */
public final class GoMath {
    private static final long SIGN = 1L << 63;
    private static final long POS_INF_BITS = 0x7FF0000000000000L;

    private GoMath() {
    }

    /** Go's {@code math.Pow(x, y)}. */
    public static double pow(double x, double y) {
        if (y == 0 || x == 1) {
            return 1;
        }
        if (y == 1) {
            return x;
        }
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Double.NaN;
        }
        if (x == 0) {
            boolean negativeZero = Double.doubleToRawLongBits(x) != 0;
            if (y < 0) {
                return negativeZero && isOddInt(y) ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            return negativeZero && isOddInt(y) ? x : 0;
        }
        if (Double.isInfinite(y)) {
            if (x == -1) {
                return 1;
            }
            return (Math.abs(x) < 1) == (y > 0) ? 0 : Double.POSITIVE_INFINITY;
        }
        if (Double.isInfinite(x)) {
            if (x < 0) {
                return pow(1 / x, -y); // Pow(-0, -y)
            }
            return y < 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        if (y == 0.5) {
            return Math.sqrt(x);
        }
        if (y == -0.5) {
            return 1 / Math.sqrt(x);
        }
        double ay = Math.abs(y);
        double yi = Math.floor(ay); // Modf of a positive value: its integer part and the rest, exactly
        double yf = ay - yi;
        if (yf != 0 && x < 0) {
            return Double.NaN;
        }
        if (yi >= 0x1p63) {
            if (x == -1) {
                return 1;
            }
            return (Math.abs(x) < 1) == (y > 0) ? 0 : Double.POSITIVE_INFINITY;
        }
        double a1 = 1.0;
        long ae = 0;
        if (yf != 0) {
            if (yf > 0.5) {
                yf--;
                yi++;
            }
            a1 = exp(yf * log(x));
        }
        // x = x1 * 2^xe, x1 in [0.5, 1).
        long xbits = Double.doubleToRawLongBits(x);
        double x1;
        long xe;
        if (Math.abs(x) < Double.MIN_NORMAL) {
            double scaled = x * 0x1p52;
            xe = exponentOf(scaled) - 52;
            x1 = fraction(scaled);
        } else {
            xe = exponentOf(x);
            x1 = fraction(x);
        }
        assert xbits != 0;
        for (long i = (long) yi; i != 0; i >>= 1) {
            if (xe < -(1 << 12) || (1 << 12) < xe) {
                // Overflows or underflows whatever the remaining bits: Ldexp below answers 0 or Inf.
                ae += xe;
                break;
            }
            if ((i & 1) == 1) {
                a1 *= x1;
                ae += xe;
            }
            x1 *= x1;
            xe <<= 1;
            if (x1 < .5) {
                x1 += x1;
                xe--;
            }
        }
        if (y < 0) {
            a1 = 1 / a1;
            ae = -ae;
        }
        return ldexp(a1, ae);
    }

    /** {@code frexp}'s exponent of a normal, finite, non-zero {@code v}. */
    private static long exponentOf(double v) {
        return ((Double.doubleToRawLongBits(v) >>> 52) & 0x7FF) - 1022;
    }

    /** {@code frexp}'s fraction in [0.5, 1) of a normal, finite, non-zero {@code v}, with its sign. */
    private static double fraction(double v) {
        long bits = Double.doubleToRawLongBits(v);
        return Double.longBitsToDouble((bits & ~(0x7FFL << 52)) | (1022L << 52));
    }

    private static boolean isOddInt(double x) {
        if (Math.abs(x) >= 0x1p53) {
            return false;
        }
        double xi = x < 0 ? Math.ceil(x) : Math.floor(x);
        return x - xi == 0 && (((long) xi) & 1) == 1;
    }

    /** Go's {@code math.Ldexp(frac, exp)}: {@code frac * 2^exp}, with Go's underflow and overflow rules. */
    static double ldexp(double frac, long exp) {
        if (frac == 0 || Double.isInfinite(frac) || Double.isNaN(frac)) {
            return frac;
        }
        if (Math.abs(frac) < Double.MIN_NORMAL) {
            frac *= 0x1p52;
            exp -= 52;
        }
        long x = Double.doubleToRawLongBits(frac);
        exp += ((x >>> 52) & 0x7FF) - 1023;
        if (exp < -1075) {
            return Math.copySign(0.0, frac);
        }
        if (exp > 1023) {
            return frac < 0 ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        double m = 1;
        if (exp < -1022) { // subnormal: one rounding, in the multiplication
            exp += 53;
            m = 0x1p-53;
        }
        x &= ~(0x7FFL << 52);
        x |= (exp + 1023) << 52;
        return m * Double.longBitsToDouble(x);
    }

    private static final double LOG2E = 1.4426950408889634073599246810018920;
    private static final double LN2U = 0.69314718055966295651160180568695068359375;
    private static final double LN2L = 0.28235290563031577122588448175013436025525412068e-12;
    private static final double EXP_OVERFLOW = 7.09782712893384e+02;

    /** Go's amd64 {@code math.Exp}, the variant with fused multiply-adds. */
    public static double exp(double x) {
        long bits = Double.doubleToRawLongBits(x);
        if ((bits & ~SIGN) >= POS_INF_BITS) {
            return x == Double.NEGATIVE_INFINITY ? 0 : x; // NaN or +Inf: itself
        }
        if (x > EXP_OVERFLOW) {
            return Double.POSITIVE_INFINITY;
        }
        double scaled = LOG2E * x;
        double rounded = Math.rint(scaled); // CVTSD2SL: to nearest, "integer indefinite" out of int32's range
        int k = rounded >= -0x1p31 && rounded < 0x1p31 ? (int) rounded : Integer.MIN_VALUE;
        double kd = k;
        double r = Math.fma(-kd, LN2U, x);
        r = Math.fma(-kd, LN2L, r);
        r *= 0.0625;
        double p = 2.4801587301587301587e-5;
        p = Math.fma(r, p, 1.9841269841269841270e-4);
        p = Math.fma(r, p, 1.3888888888888888889e-3);
        p = Math.fma(r, p, 8.3333333333333333333e-3);
        p = Math.fma(r, p, 4.1666666666666666667e-2);
        p = Math.fma(r, p, 1.6666666666666666667e-1);
        p = Math.fma(r, p, 0.5);
        p = Math.fma(r, p, 1.0);
        r *= p;
        r *= r + 2.0;
        r *= r + 2.0;
        r *= r + 2.0;
        r = Math.fma(r, r + 2.0, 1.0);
        int biased = k + 0x3FF; // 32-bit arithmetic, as the assembly's ADDL
        if (biased <= 0) {
            if (biased < -52) {
                return 0;
            }
            r *= Double.longBitsToDouble((long) (biased + 0x3FE) << 52);
            biased = 1;
        } else if (biased >= 0x7FF) {
            return Double.POSITIVE_INFINITY;
        }
        return r * Double.longBitsToDouble((long) biased << 52);
    }

    private static final double HSQRT2 = 7.07106781186547524401e-01;
    private static final double LN2HI = 6.93147180369123816490e-01;
    private static final double LN2LO = 1.90821492927058770002e-10;
    private static final double L1 = 6.666666666666735130e-01;
    private static final double L2 = 3.999999999940941908e-01;
    private static final double L3 = 2.857142874366239149e-01;
    private static final double L4 = 2.222219843214978396e-01;
    private static final double L5 = 1.818357216161805012e-01;
    private static final double L6 = 1.531383769920937332e-01;
    private static final double L7 = 1.479819860511658591e-01;

    /** Go's amd64 {@code math.Log}. */
    public static double log(double x) {
        long bits = Double.doubleToRawLongBits(x);
        if ((bits & ~SIGN) == 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (bits < 0) {
            return Double.NaN;
        }
        if (bits >= POS_INF_BITS) {
            return x;
        }
        double f1 = Double.longBitsToDouble((bits & 0x000FFFFFFFFFFFFFL) | 0x3FE0000000000000L);
        double k = (int) ((bits >>> 52) & 0x7FF) - 0x3FE;
        if (!(HSQRT2 < f1)) { // CMPSD "not less than": also when equal
            k -= 1;
            f1 *= 2;
        }
        double f = f1 - 1;
        double s = f / (2 + f);
        double s2 = s * s;
        double s4 = s2 * s2;
        double t1 = s2 * (((L7 * s4 + L5) * s4 + L3) * s4 + L1);
        double t2 = s4 * ((L6 * s4 + L4) * s4 + L2);
        double hfsq = 0.5 * f * f;
        double rest = hfsq - (s * (t1 + t2 + hfsq) + k * LN2LO);
        return k * LN2HI - (rest - f);
    }
}
