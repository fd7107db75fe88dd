package io.sluice.promql.eval.kernels;

/** The element-wise math of PromQL's functions and operators where Go's results differ from Java's defaults. */
public final class MathKernels {
    private MathKernels() {
    }

    /**
     * {@code round(v, toNearest)}: to the nearest multiple of {@code toNearest}, ties rounded up; computed
     * through the inverse as Prometheus does ({@code floor(v / n + 0.5) * n} with {@code 1/n}).
     */
    public static double round(double v, double toNearest) {
        double inverse = 1.0 / toNearest;
        return Math.floor(v * inverse + 0.5) / inverse;
    }

    /** {@code sgn}: -1, 1, or the value itself for zeros and NaN. */
    public static double sgn(double v) {
        if (v < 0) {
            return -1;
        }
        if (v > 0) {
            return 1;
        }
        return v;
    }

    /**
     * {@code log2} as Go's {@code math.Log2}: exact for powers of two, else {@code ln(frac) * log2(e) + exp}
     * with {@code x = frac * 2^exp}, {@code frac} in [0.5, 1) (so {@code log2(10)} ends in ...622 as in
     * Prometheus, not ...626 as {@code ln(x) / ln(2)} gives).
     */
    public static double log2(double x) {
        if (!(x > 0) || Double.isInfinite(x)) {
            return Math.log(x) * LOG2_E; // NaN, -Inf for 0, NaN for negatives, +Inf for +Inf
        }
        int exp;
        double frac;
        if (x < Double.MIN_NORMAL) { // subnormal: scale into the normal range first
            exp = Math.getExponent(x * 0x1p54) + 1 - 54;
            frac = x * 0x1p54 / Math.scalb(1.0, exp + 54);
        } else {
            exp = Math.getExponent(x) + 1;
            frac = Math.scalb(x, -exp);
        }
        if (frac == 0.5) {
            return exp - 1;
        }
        return Math.log(frac) * LOG2_E + exp;
    }

    private static final double LOG2_E = 1.4426950408889634074; // 1 / ln 2

    /** {@code log10}: Java's is exact for powers of ten, as Prometheus' answers are. */
    public static double log10(double x) {
        return Math.log10(x);
    }

    /** {@code deg}. */
    public static double deg(double v) {
        return v * 180 / Math.PI;
    }

    /** {@code rad}. */
    public static double rad(double v) {
        return v * Math.PI / 180;
    }

    /**
     * {@code clamp(v, min, max)} for one value, as Prometheus computes it, {@code max(min, min(max, v))}
     * with Go's {@link #goMax}/{@link #goMin} (the caller drops every series when max &lt; min).
     * {@code clamp_min(v, m)} is {@code clamp(v, m, +Inf)}, {@code clamp_max(v, m)} is {@code clamp(v, -Inf, m)}.
     */
    public static double clamp(double v, double min, double max) {
        return goMax(min, goMin(max, v));
    }

    /**
     * Go's {@code math.Max} ({@code max_of}, {@code clamp}): +Inf wins over NaN, then NaN over numbers,
     * +0 over -0. {@link Math#max} answers NaN for {@code max(NaN, +Inf)}.
     */
    public static double goMax(double x, double y) {
        if (x == Double.POSITIVE_INFINITY || y == Double.POSITIVE_INFINITY) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.max(x, y);
    }

    /** Go's {@code math.Min} ({@code min_of}, {@code clamp}): -Inf wins over NaN, then NaN over numbers, -0 over +0. */
    public static double goMin(double x, double y) {
        if (x == Double.NEGATIVE_INFINITY || y == Double.NEGATIVE_INFINITY) {
            return Double.NEGATIVE_INFINITY;
        }
        return Math.min(x, y);
    }

    /**
     * The {@code ^} operator as Go's {@code math.Pow}: like {@link Math#pow} except {@code 1^y = 1} and
     * {@code (-1)^±Inf = 1} for every y, NaN included.
     */
    public static double pow(double x, double y) {
        if (x == 1) {
            return 1;
        }
        if (x == -1 && Double.isInfinite(y)) {
            return 1;
        }
        return Math.pow(x, y);
    }

    /** The {@code %} operator as Go's {@code math.Mod} (the sign of the dividend, NaN for a zero divisor). */
    public static double mod(double x, double y) {
        return x % y;
    }
}
