package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.eval.kernels.RangeKernels;

/**
 * The range-vector functions over one window {@code [lo, hi)} of a series' float samples: the call
 * sites of the kernels in {@code eval.kernels}. Returns {@link Row#ABSENT} when the function yields no
 * point (the kernels' NO_VALUE is the same bit pattern).
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
        double[] values = new double[16];
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
     * The checks Prometheus makes of a function's scalar arguments when it calls the function, that is for
     * a series with samples in a step's window (never for an empty input): quantile_over_time's quantile
     * (a warning), double_exponential_smoothing's factors (an error).
     */
    static void checkParameters(Evaluator ev, Kind fn, double p0, double p1, Expr param) {
        if (fn == Kind.QUANTILE_OVER_TIME && (Double.isNaN(p0) || p0 < 0 || p0 > 1)) {
            ev.warn("PromQL warning: quantile value should be between 0 and 1, got " + FloatOps.formatG(p0), param);
        } else if (fn == Kind.DOUBLE_EXPONENTIAL_SMOOTHING) {
            if (p0 <= 0 || p0 >= 1) {
                throw Evaluator.execError("invalid smoothing factor. Expected: 0 < sf < 1, got: " + goFixed(p0));
            }
            if (p1 <= 0 || p1 >= 1) {
                throw Evaluator.execError("invalid trend factor. Expected: 0 < tf < 1, got: " + goFixed(p1));
            }
        }
    }

    /** Go's {@code %f}: six decimals, infinities as {@code +Inf} and {@code -Inf}. */
    static String goFixed(double v) {
        return Double.isInfinite(v) ? (v > 0 ? "+Inf" : "-Inf") : String.format(java.util.Locale.ROOT, "%f", v);
    }

    /**
     * One window of one series through the kernel of {@code eval.kernels}.
     *
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
        return switch (fn) {
            case RATE -> RangeKernels.rate(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs);
            case INCREASE -> RangeKernels.increase(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs);
            case DELTA -> RangeKernels.delta(ts, vs, lo, hi, rangeStart, rangeEnd, rangeMs);
            case IRATE -> RangeKernels.irate(ts, vs, lo, hi);
            case IDELTA -> RangeKernels.idelta(ts, vs, lo, hi);
            case DERIV -> RangeKernels.deriv(ts, vs, lo, hi);
            case PREDICT_LINEAR -> RangeKernels.predictLinear(ts, vs, lo, hi, evalT, p0);
            case CHANGES -> RangeKernels.changes(vs, lo, hi);
            case RESETS -> RangeKernels.resets(vs, lo, hi);
            case AVG_OVER_TIME -> RangeKernels.avgOverTime(vs, lo, hi);
            case SUM_OVER_TIME -> RangeKernels.sumOverTime(vs, lo, hi);
            case MIN_OVER_TIME -> RangeKernels.minOverTime(vs, lo, hi);
            case MAX_OVER_TIME -> RangeKernels.maxOverTime(vs, lo, hi);
            case TS_OF_MIN_OVER_TIME -> RangeKernels.tsOfMinOverTime(ts, vs, lo, hi);
            case TS_OF_MAX_OVER_TIME -> RangeKernels.tsOfMaxOverTime(ts, vs, lo, hi);
            case COUNT_OVER_TIME -> n;
            case PRESENT_OVER_TIME, ABSENT_OVER_TIME -> 1;
            case LAST_OVER_TIME -> vs[hi - 1];
            case FIRST_OVER_TIME -> vs[lo];
            case TS_OF_LAST_OVER_TIME -> ts[hi - 1] / 1000.0;
            case TS_OF_FIRST_OVER_TIME -> ts[lo] / 1000.0;
            case QUANTILE_OVER_TIME -> RangeKernels.quantileOverTime(p0, vs, lo, hi, sc.values);
            case MAD_OVER_TIME -> RangeKernels.madOverTime(vs, lo, hi, sc.values);
            case STDDEV_OVER_TIME -> RangeKernels.stddevOverTime(vs, lo, hi);
            case STDVAR_OVER_TIME -> RangeKernels.stdvarOverTime(vs, lo, hi);
            case DOUBLE_EXPONENTIAL_SMOOTHING -> RangeKernels.doubleExponentialSmoothing(vs, lo, hi, p0, p1);
        };
    }
}
