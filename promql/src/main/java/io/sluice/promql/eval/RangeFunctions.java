package io.sluice.promql.eval;

/**
 * The range-vector functions over one window {@code [lo, hi)} of a series' float samples (primitive
 * arrays, no engine types). Returns {@link Row#ABSENT} when the function yields no point. The
 * evaluator's call sites for the kernels of {@code eval.kernels}; written here so the evaluator runs and
 * can be tested before those land.
 */
final class RangeFunctions {
    private RangeFunctions() {
    }

    /** The functions, resolved once per call site instead of a string switch per window. */
    enum Kind {
        RATE, INCREASE, DELTA, IRATE, IDELTA, DERIV, PREDICT_LINEAR, CHANGES, RESETS, AVG_OVER_TIME, SUM_OVER_TIME,
        MIN_OVER_TIME, MAX_OVER_TIME, TS_OF_MIN_OVER_TIME, TS_OF_MAX_OVER_TIME, COUNT_OVER_TIME, PRESENT_OVER_TIME,
        LAST_OVER_TIME, FIRST_OVER_TIME, TS_OF_LAST_OVER_TIME, TS_OF_FIRST_OVER_TIME, QUANTILE_OVER_TIME,
        MAD_OVER_TIME, STDDEV_OVER_TIME, STDVAR_OVER_TIME, DOUBLE_EXPONENTIAL_SMOOTHING, ABSENT_OVER_TIME;

        static Kind of(String name) {
            return valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** Per-call-site buffers reused across windows: no allocation per window. */
    static final class Scratch {
        /**
         * For rate/increase: {@code resets[i]} = how many of samples 1..i-1 of the current series are below
         * their predecessor, so a window without a counter reset skips the correction loop.
         */
        int[] resets;
        double[] values = new double[16];
        final double[] c = new double[4];
        final double[] pair = new double[2];
    }

    /** Fills {@code sc.resets} for the series in {@code vs[0..n)}. */
    static void countResets(double[] vs, int n, Scratch sc) {
        if (sc.resets == null || sc.resets.length < n + 1) {
            sc.resets = new int[Math.max(n + 1, 64)];
        }
        int[] r = sc.resets;
        r[0] = 0;
        for (int i = 0; i < n; i++) {
            r[i + 1] = r[i] + (i > 0 && vs[i] < vs[i - 1] ? 1 : 0);
        }
    }

    static boolean isRangeFunction(String name) {
        return switch (name) {
            case "rate", "increase", "delta", "irate", "idelta", "deriv", "predict_linear", "changes", "resets",
                 "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time",
                 "quantile_over_time", "stddev_over_time", "stdvar_over_time", "last_over_time", "first_over_time",
                 "present_over_time", "mad_over_time", "absent_over_time", "double_exponential_smoothing",
                 "ts_of_max_over_time", "ts_of_min_over_time", "ts_of_last_over_time", "ts_of_first_over_time" -> true;
            default -> false;
        };
    }

    /**
     * @param evalT the evaluation time of the step (predict_linear's intercept)
     * @param p0 the first scalar argument at this step (quantile, predict_linear's seconds, smoothing factor)
     * @param p1 the second (trend factor)
     */
    static double apply(Kind fn, long[] ts, double[] vs, int lo, int hi, long rangeStart, long rangeEnd,
                        long rangeMs, long evalT, double p0, double p1, Scratch sc) {
        int n = hi - lo;
        if (n <= 0) {
            return Row.ABSENT;
        }
        if (sc.values.length < n) {
            sc.values = new double[Math.max(n, sc.values.length * 2)];
        }
        double[] scratch = sc.values;
        double[] c = sc.c;
        switch (fn) {
            case RATE:
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, true, true, sc.resets);
            case INCREASE:
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, true, false, sc.resets);
            case DELTA:
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, false, false, null);
            case IRATE:
            case IDELTA: {
                if (n < 2) {
                    return Row.ABSENT;
                }
                long dt = ts[hi - 1] - ts[hi - 2];
                if (dt == 0) {
                    return Row.ABSENT;
                }
                double last = vs[hi - 1];
                double prev = vs[hi - 2];
                boolean isRate = fn == Kind.IRATE;
                double r = (isRate && last < prev) ? last : last - prev;
                return isRate ? r / (dt / 1000.0) : r;
            }
            case DERIV: {
                if (n < 2) {
                    return Row.ABSENT;
                }
                regression(ts, vs, lo, hi, ts[lo], sc);
                return sc.pair[0];
            }
            case PREDICT_LINEAR: {
                if (n < 2) {
                    return Row.ABSENT;
                }
                regression(ts, vs, lo, hi, evalT, sc);
                return sc.pair[0] * p0 + sc.pair[1];
            }
            case CHANGES: {
                int changes = 0;
                for (int i = lo + 1; i < hi; i++) {
                    double a = vs[i - 1];
                    double b = vs[i];
                    if (b != a && !(Double.isNaN(a) && Double.isNaN(b))) {
                        changes++;
                    }
                }
                return changes;
            }
            case RESETS: {
                int resets = 0;
                for (int i = lo + 1; i < hi; i++) {
                    if (vs[i] < vs[i - 1]) {
                        resets++;
                    }
                }
                return resets;
            }
            case AVG_OVER_TIME: {
                double sum = vs[lo];
                double count = 1;
                double mean = 0;
                c[0] = 0;
                boolean incremental = false;
                for (int i = lo + 1; i < hi; i++) {
                    double f = vs[i];
                    count = i - lo + 1;
                    if (!incremental) {
                        double before = c[0];
                        double ns = FloatOps.kahanInc(f, sum, c);
                        if (!Double.isInfinite(ns)) {
                            sum = ns;
                            continue;
                        }
                        c[0] = before;
                        incremental = true;
                        mean = sum / (count - 1);
                        c[0] /= (count - 1);
                    }
                    double q = (count - 1) / count;
                    c[0] = q * c[0];
                    mean = FloatOps.kahanInc(f / count, q * mean, c);
                }
                if (incremental) {
                    return mean + c[0];
                }
                return sum / count + c[0] / count;
            }
            case SUM_OVER_TIME: {
                double sum = 0;
                c[0] = 0;
                for (int i = lo; i < hi; i++) {
                    sum = FloatOps.kahanInc(vs[i], sum, c);
                }
                return Double.isInfinite(sum) ? sum : sum + c[0];
            }
            case MIN_OVER_TIME:
            case MAX_OVER_TIME:
            case TS_OF_MIN_OVER_TIME:
            case TS_OF_MAX_OVER_TIME: {
                boolean max = fn == Kind.MAX_OVER_TIME || fn == Kind.TS_OF_MAX_OVER_TIME;
                double best = vs[lo];
                long bestT = ts[lo];
                for (int i = lo; i < hi; i++) {
                    double f = vs[i];
                    boolean better = max ? (f > best || Double.isNaN(best)) : (f < best || Double.isNaN(best));
                    if (better) {
                        best = f;
                        bestT = ts[i];
                    }
                }
                return fn == Kind.TS_OF_MAX_OVER_TIME || fn == Kind.TS_OF_MIN_OVER_TIME ? bestT / 1000.0 : best;
            }
            case COUNT_OVER_TIME:
                return n;
            case PRESENT_OVER_TIME:
                return 1;
            case LAST_OVER_TIME:
                return vs[hi - 1];
            case FIRST_OVER_TIME:
                return vs[lo];
            case TS_OF_LAST_OVER_TIME:
                return ts[hi - 1] / 1000.0;
            case TS_OF_FIRST_OVER_TIME:
                return ts[lo] / 1000.0;
            case QUANTILE_OVER_TIME: {
                System.arraycopy(vs, lo, scratch, 0, n);
                return FloatOps.quantile(p0, scratch, n);
            }
            case MAD_OVER_TIME: {
                for (int i = lo; i < hi; i++) {
                    if (Double.isNaN(vs[i])) {
                        return Double.NaN;
                    }
                }
                System.arraycopy(vs, lo, scratch, 0, n);
                double median = FloatOps.quantile(0.5, scratch, n);
                for (int i = 0; i < n; i++) {
                    scratch[i] = Math.abs(scratch[i] - median);
                }
                return FloatOps.quantile(0.5, scratch, n);
            }
            case STDDEV_OVER_TIME:
            case STDVAR_OVER_TIME: {
                double count = 0;
                double mean = 0;
                double aux = 0;
                double[] cMean = sc.pair;
                cMean[0] = 0;
                cMean[1] = 0;
                double[] cAux = c;
                cAux[0] = 0;
                for (int i = lo; i < hi; i++) {
                    double f = vs[i];
                    count++;
                    double delta = f - (mean + cMean[0]);
                    mean = FloatOps.kahanInc(delta / count, mean, cMean);
                    aux = FloatOps.kahanInc(delta * (f - (mean + cMean[0])), aux, cAux);
                }
                double variance = (aux + cAux[0]) / count;
                return fn == Kind.STDDEV_OVER_TIME ? Math.sqrt(variance) : variance;
            }
            case DOUBLE_EXPONENTIAL_SMOOTHING: {
                if (n < 2) {
                    return Row.ABSENT;
                }
                double sf = p0;
                double tf = p1;
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
            default:
                throw new IllegalArgumentException("not a range function: " + fn);
        }
    }

    private static double extrapolated(long[] ts, double[] vs, int lo, int hi, long rangeStart, long rangeEnd,
                                       long rangeMs, boolean isCounter, boolean isRate, int[] resets) {
        int n = hi - lo;
        if (n < 2) {
            return Row.ABSENT;
        }
        long firstT = ts[lo];
        long lastT = ts[hi - 1];
        double result = vs[hi - 1] - vs[lo];
        if (isCounter && (resets == null || resets[hi] != resets[lo + 1])) {
            for (int i = lo + 1; i < hi; i++) {
                if (vs[i] < vs[i - 1]) {
                    result += vs[i - 1];
                }
            }
        }
        double durationToStart = (firstT - rangeStart) / 1000.0;
        double durationToEnd = (rangeEnd - lastT) / 1000.0;
        double sampledInterval = (lastT - firstT) / 1000.0;
        double avg = sampledInterval / (n - 1);
        double threshold = avg * 1.1;
        if (durationToStart >= threshold) {
            durationToStart = avg / 2;
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
            durationToEnd = avg / 2;
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

    /** Least squares {slope, intercept} with x = (t - interceptTime) seconds, Kahan sums, as Prometheus. */
    private static void regression(long[] ts, double[] vs, int lo, int hi, long interceptTime, Scratch sc) {
        double n = 0;
        double sumX = 0;
        double sumY = 0;
        double sumXY = 0;
        double sumX2 = 0;
        double[] k = sc.c;
        java.util.Arrays.fill(k, 0);
        double initY = vs[lo];
        boolean constY = true;
        for (int i = lo; i < hi; i++) {
            double f = vs[i];
            if (constY && i > lo && f != initY) {
                constY = false;
            }
            n += 1.0;
            double x = (ts[i] - interceptTime) / 1e3;
            sumX = kahan(x, sumX, k, 0);
            sumY = kahan(f, sumY, k, 1);
            sumXY = kahan(x * f, sumXY, k, 2);
            sumX2 = kahan(x * x, sumX2, k, 3);
        }
        if (constY) {
            sc.pair[0] = Double.isInfinite(initY) ? Double.NaN : 0;
            sc.pair[1] = Double.isInfinite(initY) ? Double.NaN : initY;
            return;
        }
        sumX += k[0];
        sumY += k[1];
        sumXY += k[2];
        sumX2 += k[3];
        double covXY = sumXY - sumX * sumY / n;
        double varX = sumX2 - sumX * sumX / n;
        double slope = covXY / varX;
        double intercept = sumY / n - slope * sumX / n;
        sc.pair[0] = slope;
        sc.pair[1] = intercept;
    }

    /** Kahan-Neumaier increment with the compensation in {@code c[i]}. */
    private static double kahan(double inc, double sum, double[] c, int i) {
        double t = sum + inc;
        if (Double.isInfinite(t)) {
            c[i] = 0;
        } else if (Math.abs(sum) >= Math.abs(inc)) {
            c[i] += (sum - t) + inc;
        } else {
            c[i] += (inc - t) + sum;
        }
        return t;
    }
}
