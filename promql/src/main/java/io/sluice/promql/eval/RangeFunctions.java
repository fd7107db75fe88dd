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
    static double apply(String fn, long[] ts, double[] vs, int lo, int hi, long rangeStart, long rangeEnd,
                        long rangeMs, long evalT, double p0, double p1, double[] scratch) {
        int n = hi - lo;
        if (n <= 0) {
            return Row.ABSENT;
        }
        switch (fn) {
            case "rate":
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, true, true);
            case "increase":
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, true, false);
            case "delta":
                return extrapolated(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs, false, false);
            case "irate":
            case "idelta": {
                if (n < 2) {
                    return Row.ABSENT;
                }
                long dt = ts[hi - 1] - ts[hi - 2];
                if (dt == 0) {
                    return Row.ABSENT;
                }
                double last = vs[hi - 1];
                double prev = vs[hi - 2];
                boolean isRate = fn.equals("irate");
                double r = (isRate && last < prev) ? last : last - prev;
                return isRate ? r / (dt / 1000.0) : r;
            }
            case "deriv": {
                if (n < 2) {
                    return Row.ABSENT;
                }
                return regression(ts, vs, lo, hi, ts[lo])[0];
            }
            case "predict_linear": {
                if (n < 2) {
                    return Row.ABSENT;
                }
                double[] si = regression(ts, vs, lo, hi, evalT);
                return si[0] * p0 + si[1];
            }
            case "changes": {
                int c = 0;
                for (int i = lo + 1; i < hi; i++) {
                    double a = vs[i - 1];
                    double b = vs[i];
                    if (b != a && !(Double.isNaN(a) && Double.isNaN(b))) {
                        c++;
                    }
                }
                return c;
            }
            case "resets": {
                int c = 0;
                for (int i = lo + 1; i < hi; i++) {
                    if (vs[i] < vs[i - 1]) {
                        c++;
                    }
                }
                return c;
            }
            case "avg_over_time": {
                double sum = vs[lo];
                double count = 1;
                double mean = 0;
                double[] c = {0};
                boolean incremental = false;
                for (int i = lo + 1; i < hi; i++) {
                    double f = vs[i];
                    count = i - lo + 1;
                    if (!incremental) {
                        double[] c2 = {c[0]};
                        double ns = FloatOps.kahanInc(f, sum, c2);
                        if (!Double.isInfinite(ns)) {
                            sum = ns;
                            c[0] = c2[0];
                            continue;
                        }
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
            case "sum_over_time": {
                double sum = 0;
                double[] c = {0};
                for (int i = lo; i < hi; i++) {
                    sum = FloatOps.kahanInc(vs[i], sum, c);
                }
                return Double.isInfinite(sum) ? sum : sum + c[0];
            }
            case "min_over_time":
            case "max_over_time":
            case "ts_of_min_over_time":
            case "ts_of_max_over_time": {
                boolean max = fn.contains("max");
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
                return fn.startsWith("ts_") ? bestT / 1000.0 : best;
            }
            case "count_over_time":
                return n;
            case "present_over_time":
                return 1;
            case "last_over_time":
                return vs[hi - 1];
            case "first_over_time":
                return vs[lo];
            case "ts_of_last_over_time":
                return ts[hi - 1] / 1000.0;
            case "ts_of_first_over_time":
                return ts[lo] / 1000.0;
            case "quantile_over_time": {
                System.arraycopy(vs, lo, scratch, 0, n);
                return FloatOps.quantile(p0, scratch, n);
            }
            case "mad_over_time": {
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
            case "stddev_over_time":
            case "stdvar_over_time": {
                double count = 0;
                double mean = 0;
                double[] cMean = {0};
                double aux = 0;
                double[] cAux = {0};
                for (int i = lo; i < hi; i++) {
                    double f = vs[i];
                    count++;
                    double delta = f - (mean + cMean[0]);
                    mean = FloatOps.kahanInc(delta / count, mean, cMean);
                    aux = FloatOps.kahanInc(delta * (f - (mean + cMean[0])), aux, cAux);
                }
                double variance = (aux + cAux[0]) / count;
                return fn.startsWith("stddev") ? Math.sqrt(variance) : variance;
            }
            case "double_exponential_smoothing": {
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
                                       long rangeMs, boolean isCounter, boolean isRate) {
        int n = hi - lo;
        if (n < 2) {
            return Row.ABSENT;
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
    private static double[] regression(long[] ts, double[] vs, int lo, int hi, long interceptTime) {
        double n = 0;
        double sumX = 0;
        double sumY = 0;
        double sumXY = 0;
        double sumX2 = 0;
        double[] cX = {0};
        double[] cY = {0};
        double[] cXY = {0};
        double[] cX2 = {0};
        double initY = vs[lo];
        boolean constY = true;
        for (int i = lo; i < hi; i++) {
            double f = vs[i];
            if (constY && i > lo && f != initY) {
                constY = false;
            }
            n += 1.0;
            double x = (ts[i] - interceptTime) / 1e3;
            sumX = FloatOps.kahanInc(x, sumX, cX);
            sumY = FloatOps.kahanInc(f, sumY, cY);
            sumXY = FloatOps.kahanInc(x * f, sumXY, cXY);
            sumX2 = FloatOps.kahanInc(x * x, sumX2, cX2);
        }
        if (constY) {
            if (Double.isInfinite(initY)) {
                return new double[] {Double.NaN, Double.NaN};
            }
            return new double[] {0, initY};
        }
        sumX += cX[0];
        sumY += cY[0];
        sumXY += cXY[0];
        sumX2 += cX2[0];
        double covXY = sumXY - sumX * sumY / n;
        double varX = sumX2 - sumX * sumX / n;
        double slope = covXY / varX;
        double intercept = sumY / n - slope * sumX / n;
        return new double[] {slope, intercept};
    }
}
