package io.sluice.promql.eval.kernels;

/**
 * The range-vector functions over one window {@code [lo, hi)} of a series' float samples: timestamps
 * {@code ts} (ms) and values {@code vs}, in time order. A function that yields no point for the window
 * (too few samples) returns {@link #NO_VALUE}, a NaN no arithmetic produces; test with {@link #isNoValue}.
 * Callers pass non-empty windows (Prometheus yields nothing for an empty one).
 */
public final class RangeKernels {
    /** Bits of {@link #NO_VALUE}: a signalling NaN (any arithmetic on it yields a quiet NaN). */
    public static final long NO_VALUE_BITS = 0x7ff4_dead_beef_0001L;
    /** "No point for this window". */
    public static final double NO_VALUE = Double.longBitsToDouble(NO_VALUE_BITS);

    private RangeKernels() {
    }

    public static boolean isNoValue(double d) {
        return Double.doubleToRawLongBits(d) == NO_VALUE_BITS;
    }

    // ------------------------------------------------------------------ rate, increase, delta

    /** {@code rate}: the extrapolated per-second increase, counter resets corrected. */
    public static double rate(long[] ts, double[] vs, int lo, int hi, long rangeStartMs, long rangeEndMs, long rangeMs) {
        return extrapolatedRate(ts, vs, lo, hi, rangeStartMs, rangeEndMs, rangeMs, true, true);
    }

    /** {@code increase}: the extrapolated increase, counter resets corrected. */
    public static double increase(long[] ts, double[] vs, int lo, int hi, long rangeStartMs, long rangeEndMs, long rangeMs) {
        return extrapolatedRate(ts, vs, lo, hi, rangeStartMs, rangeEndMs, rangeMs, true, false);
    }

    /** {@code delta}: the extrapolated difference of a gauge. */
    public static double delta(long[] ts, double[] vs, int lo, int hi, long rangeStartMs, long rangeEndMs, long rangeMs) {
        return extrapolatedRate(ts, vs, lo, hi, rangeStartMs, rangeEndMs, rangeMs, false, false);
    }

    /**
     * Prometheus' {@code extrapolatedRate}. The window holds the samples in {@code (rangeStart, rangeEnd]}
     * ({@code rangeStart = t - offset - range}, {@code rangeEnd = t - offset}). The difference between
     * the last and first sample (plus, for counters, every value before a drop) is extrapolated towards
     * each boundary: all the way when the gap is under 110% of the average sample interval, else by half
     * an interval; for counters, never below the point where the counter would have been zero.
     * {@link #NO_VALUE} with fewer than two samples.
     */
    public static double extrapolatedRate(long[] ts, double[] vs, int lo, int hi, long rangeStartMs, long rangeEndMs,
                                          long rangeMs, boolean isCounter, boolean isRate) {
        int n = hi - lo;
        if (n < 2) {
            return NO_VALUE;
        }
        long firstT = ts[lo];
        long lastT = ts[hi - 1];
        double result = vs[hi - 1] - vs[lo];
        if (isCounter) {
            for (int i = lo + 1; i < hi; i++) {
                if (vs[i] < vs[i - 1]) {
                    result += vs[i - 1];
                }
            }
        }
        double durationToStart = (double) (firstT - rangeStartMs) / 1000;
        double durationToEnd = (double) (rangeEndMs - lastT) / 1000;
        double sampledInterval = (double) (lastT - firstT) / 1000;
        double averageInterval = sampledInterval / (n - 1);
        double threshold = averageInterval * 1.1;
        if (durationToStart >= threshold) {
            durationToStart = averageInterval / 2;
        }
        if (isCounter) {
            double durationToZero = durationToStart;
            if (result > 0 && vs[lo] >= 0) {
                durationToZero = sampledInterval * (vs[lo] / result);
            }
            if (durationToZero < durationToStart) {
                durationToStart = durationToZero;
            }
        }
        if (durationToEnd >= threshold) {
            durationToEnd = averageInterval / 2;
        }
        double factor = 1.0;
        if (sampledInterval != 0) {
            factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
        }
        if (isRate) {
            factor /= rangeMs / 1000.0;
        }
        return result * factor;
    }

    /** {@code irate}: per-second rate between the last two samples (a drop counts as a reset to 0). */
    public static double irate(long[] ts, double[] vs, int lo, int hi) {
        return instant(ts, vs, lo, hi, true);
    }

    /** {@code idelta}: difference between the last two samples. */
    public static double idelta(long[] ts, double[] vs, int lo, int hi) {
        return instant(ts, vs, lo, hi, false);
    }

    private static double instant(long[] ts, double[] vs, int lo, int hi, boolean isRate) {
        if (hi - lo < 2) {
            return NO_VALUE;
        }
        long interval = ts[hi - 1] - ts[hi - 2];
        if (interval == 0) {
            return NO_VALUE;
        }
        double last = vs[hi - 1];
        double prev = vs[hi - 2];
        double result = last;
        if (!isRate || !(last < prev)) {
            result = last - prev;
        }
        if (isRate) {
            result /= (double) interval / 1000;
        }
        return result;
    }

    // ------------------------------------------------------------------ deriv, predict_linear

    /** {@code deriv}: the least-squares slope per second. {@link #NO_VALUE} with fewer than two samples. */
    public static double deriv(long[] ts, double[] vs, int lo, int hi) {
        if (hi - lo < 2) {
            return NO_VALUE;
        }
        return regression(ts, vs, lo, hi, ts[lo], true);
    }

    /**
     * {@code predict_linear}: the least-squares line's value {@code seconds} after {@code evalTimeMs}
     * (the line's intercept is taken at the evaluation time, as Prometheus does).
     */
    public static double predictLinear(long[] ts, double[] vs, int lo, int hi, long evalTimeMs, double seconds) {
        if (hi - lo < 2) {
            return NO_VALUE;
        }
        double slope = regression(ts, vs, lo, hi, evalTimeMs, true);
        double intercept = regression(ts, vs, lo, hi, evalTimeMs, false);
        return slope * seconds + intercept;
    }

    /** Least squares with x = (t - interceptTime) in seconds and Kahan sums; the slope or the intercept. */
    private static double regression(long[] ts, double[] vs, int lo, int hi, long interceptTimeMs, boolean wantSlope) {
        double n = 0;
        double sumX = 0;
        double cX = 0;
        double sumY = 0;
        double cY = 0;
        double sumXY = 0;
        double cXY = 0;
        double sumX2 = 0;
        double cX2 = 0;
        double initY = vs[lo];
        boolean constY = true;
        for (int i = lo; i < hi; i++) {
            double f = vs[i];
            if (constY && i > lo && f != initY) {
                constY = false;
            }
            n += 1.0;
            double x = (double) (ts[i] - interceptTimeMs) / 1e3;
            double t = sumX + x;
            cX = Kahan.compensate(cX, sumX, x, t);
            sumX = t;
            t = sumY + f;
            cY = Kahan.compensate(cY, sumY, f, t);
            sumY = t;
            double xy = x * f;
            t = sumXY + xy;
            cXY = Kahan.compensate(cXY, sumXY, xy, t);
            sumXY = t;
            double x2 = x * x;
            t = sumX2 + x2;
            cX2 = Kahan.compensate(cX2, sumX2, x2, t);
            sumX2 = t;
        }
        if (constY) {
            if (Double.isInfinite(initY)) {
                return Double.NaN;
            }
            return wantSlope ? 0 : initY;
        }
        sumX += cX;
        sumY += cY;
        sumXY += cXY;
        sumX2 += cX2;
        double covXY = sumXY - sumX * sumY / n;
        double varX = sumX2 - sumX * sumX / n;
        double slope = covXY / varX;
        return wantSlope ? slope : sumY / n - slope * sumX / n;
    }

    // ------------------------------------------------------------------ changes, resets

    /** {@code changes}: how often the value changed (NaN to NaN is no change). */
    public static double changes(double[] vs, int lo, int hi) {
        int c = 0;
        for (int i = lo + 1; i < hi; i++) {
            double prev = vs[i - 1];
            double cur = vs[i];
            if (cur != prev && !(Double.isNaN(cur) && Double.isNaN(prev))) {
                c++;
            }
        }
        return c;
    }

    /** {@code resets}: how often the value dropped. */
    public static double resets(double[] vs, int lo, int hi) {
        int c = 0;
        for (int i = lo + 1; i < hi; i++) {
            if (vs[i] < vs[i - 1]) {
                c++;
            }
        }
        return c;
    }

    // ------------------------------------------------------------------ <agg>_over_time

    /** {@code sum_over_time}, Kahan-summed. */
    public static double sumOverTime(double[] vs, int lo, int hi) {
        double sum = 0;
        double c = 0;
        for (int i = lo; i < hi; i++) {
            double t = sum + vs[i];
            c = Kahan.compensate(c, sum, vs[i], t);
            sum = t;
        }
        return Double.isInfinite(sum) ? sum : sum + c;
    }

    /**
     * {@code avg_over_time}: Kahan-summed mean; once the sum would overflow, an incremental mean
     * instead (so the average of huge values stays finite), as Prometheus computes it.
     */
    public static double avgOverTime(double[] vs, int lo, int hi) {
        double sum = vs[lo];
        double count = 1;
        double mean = 0;
        double c = 0;
        boolean incremental = false;
        for (int i = lo + 1; i < hi; i++) {
            double f = vs[i];
            count = i - lo + 1;
            if (!incremental) {
                double t = sum + f;
                double nc = Kahan.compensate(c, sum, f, t);
                if (!Double.isInfinite(t)) {
                    sum = t;
                    c = nc;
                    continue;
                }
                incremental = true;
                mean = sum / (count - 1);
                c /= count - 1;
            }
            double q = (count - 1) / count;
            double base = q * mean;
            double inc = f / count;
            double t = base + inc;
            c = Kahan.compensate(q * c, base, inc, t);
            mean = t;
        }
        if (incremental) {
            return mean + c;
        }
        return sum / count + c / count;
    }

    /** {@code min_over_time}: NaN only if every value is NaN. */
    public static double minOverTime(double[] vs, int lo, int hi) {
        double best = vs[lo];
        for (int i = lo; i < hi; i++) {
            if (vs[i] < best || Double.isNaN(best)) {
                best = vs[i];
            }
        }
        return best;
    }

    /** {@code max_over_time}: NaN only if every value is NaN. */
    public static double maxOverTime(double[] vs, int lo, int hi) {
        double best = vs[lo];
        for (int i = lo; i < hi; i++) {
            if (vs[i] > best || Double.isNaN(best)) {
                best = vs[i];
            }
        }
        return best;
    }

    /** {@code ts_of_min_over_time}: seconds of the minimum, the last one of equal minima (as Prometheus). */
    public static double tsOfMinOverTime(long[] ts, double[] vs, int lo, int hi) {
        double best = vs[lo];
        long bestT = ts[lo];
        for (int i = lo; i < hi; i++) {
            if (vs[i] <= best || Double.isNaN(best)) {
                best = vs[i];
                bestT = ts[i];
            }
        }
        return (double) bestT / 1000;
    }

    /** {@code ts_of_max_over_time}: seconds of the maximum, the last one of equal maxima (as Prometheus). */
    public static double tsOfMaxOverTime(long[] ts, double[] vs, int lo, int hi) {
        double best = vs[lo];
        long bestT = ts[lo];
        for (int i = lo; i < hi; i++) {
            if (vs[i] >= best || Double.isNaN(best)) {
                best = vs[i];
                bestT = ts[i];
            }
        }
        return (double) bestT / 1000;
    }

    /** {@code stdvar_over_time}: population variance (Welford with Kahan-compensated mean and sum of squares). */
    public static double stdvarOverTime(double[] vs, int lo, int hi) {
        double count = 0;
        double mean = 0;
        double cMean = 0;
        double aux = 0;
        double cAux = 0;
        for (int i = lo; i < hi; i++) {
            double f = vs[i];
            count++;
            double delta = f - (mean + cMean);
            double inc = delta / count;
            double t = mean + inc;
            cMean = Kahan.compensate(cMean, mean, inc, t);
            mean = t;
            double inc2 = delta * (f - (mean + cMean));
            t = aux + inc2;
            cAux = Kahan.compensate(cAux, aux, inc2, t);
            aux = t;
        }
        return (aux + cAux) / count;
    }

    /** {@code stddev_over_time}. */
    public static double stddevOverTime(double[] vs, int lo, int hi) {
        return Math.sqrt(stdvarOverTime(vs, lo, hi));
    }

    /** {@code quantile_over_time}; {@code scratch} holds at least {@code hi - lo} values. */
    public static double quantileOverTime(double q, double[] vs, int lo, int hi, double[] scratch) {
        int n = hi - lo;
        System.arraycopy(vs, lo, scratch, 0, n);
        return Quantiles.quantile(q, scratch, n);
    }

    /** {@code mad_over_time}: median absolute deviation from the median; NaN if any value is NaN. */
    public static double madOverTime(double[] vs, int lo, int hi, double[] scratch) {
        int n = hi - lo;
        for (int i = lo; i < hi; i++) {
            if (Double.isNaN(vs[i])) {
                return Double.NaN;
            }
        }
        System.arraycopy(vs, lo, scratch, 0, n);
        double median = Quantiles.quantile(0.5, scratch, n);
        for (int i = 0; i < n; i++) {
            scratch[i] = Math.abs(scratch[i] - median);
        }
        return Quantiles.quantile(0.5, scratch, n);
    }

    /**
     * {@code double_exponential_smoothing} (Holt's linear method) with smoothing factor {@code sf} and
     * trend factor {@code tf}, both strictly between 0 and 1. {@link #NO_VALUE} with fewer than two samples.
     *
     * @throws IllegalArgumentException with Prometheus' text for a factor outside (0, 1)
     */
    public static double doubleExponentialSmoothing(double[] vs, int lo, int hi, double sf, double tf) {
        if (sf <= 0 || sf >= 1) {
            throw new IllegalArgumentException("invalid smoothing factor. Expected: 0 < sf < 1, got: " + goF(sf));
        }
        if (tf <= 0 || tf >= 1) {
            throw new IllegalArgumentException("invalid trend factor. Expected: 0 < tf < 1, got: " + goF(tf));
        }
        int n = hi - lo;
        if (n < 2) {
            return NO_VALUE;
        }
        double s0 = 0;
        double s1 = vs[lo];
        double b = vs[lo + 1] - vs[lo];
        for (int i = 1; i < n; i++) {
            double x = sf * vs[lo + i];
            if (i - 1 != 0) {
                b = tf * (s1 - s0) + (1 - tf) * b;
            }
            double y = (1 - sf) * (s1 + b);
            s0 = s1;
            s1 = x + y;
        }
        return s1;
    }

    /** Go's {@code %f}. */
    static String goF(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return new java.math.BigDecimal(v).setScale(6, java.math.RoundingMode.HALF_EVEN).toPlainString();
    }
}
