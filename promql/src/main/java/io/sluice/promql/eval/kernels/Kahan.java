package io.sluice.promql.eval.kernels;

/**
 * Kahan summation with Neumaier's improvement, as Prometheus' {@code kahansum.Inc}: a running sum and a
 * separate compensation term. Kernels keep both in locals:
 * <pre>{@code
 * double t = sum + inc;
 * c = Kahan.compensate(c, sum, inc, t);
 * sum = t;
 * }</pre>
 * The result is {@code sum + c} (or {@code sum} alone once it is infinite).
 */
public final class Kahan {
    private Kahan() {
    }

    /** The new compensation after {@code t = sum + inc}; reset to 0 once the sum overflows. */
    public static double compensate(double c, double sum, double inc, double t) {
        if (Double.isInfinite(t)) {
            return 0;
        }
        if (Math.abs(sum) >= Math.abs(inc)) {
            return c + ((sum - t) + inc);
        }
        return c + ((inc - t) + sum);
    }
}
