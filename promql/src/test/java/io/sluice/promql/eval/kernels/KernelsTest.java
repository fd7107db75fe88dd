package io.sluice.promql.eval.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Every expected value here is what Prometheus v0.314.0's engine answered for the same data and query
 * (run through its promqltest storage and engine; the query is named beside each check). The data are
 * the promqltest series {@code load 15s}: sample i at i*15 s.
 */
class KernelsTest {
    private static final double NAN = Double.NaN;
    // load 15s
    private static final double[] CTR = {0, 10, 25, 40, 3, 20, 38, 50, 51, 70, 90, 100, 5, 15};
    private static final double[] GAUGE = {5, -3, 8, 1.5, NAN, 4, 2, 9, -7, 3, 0.25, 11};
    private static final double[] SMALLF = {1e-10, 2e-10, 1e15, -1e15, 3e-10, 1, 1, 1};
    private static final double[] BIG = {1e308, 1e308, 1e308, 1e308};

    /** The window of a range selector {@code [rangeSec]} evaluated at {@code atSec}: samples in (at - range, at]. */
    private record Window(long[] ts, double[] vs, int lo, int hi, long start, long end, long rangeMs) {
    }

    private static Window window(double[] values, long atSec, long rangeSec) {
        long[] ts = new long[values.length];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = i * 15_000L;
        }
        long end = atSec * 1000;
        long start = end - rangeSec * 1000;
        int lo = 0;
        while (lo < ts.length && ts[lo] <= start) {
            lo++;
        }
        int hi = lo;
        while (hi < ts.length && ts[hi] <= end) {
            hi++;
        }
        return new Window(ts, values, lo, hi, start, end, rangeSec * 1000);
    }

    /** As {@link #window} for {@code load 10s} data starting at {@code firstSec}. */
    private static Window window10(double[] values, long firstSec, long atSec, long rangeSec) {
        long[] ts = new long[values.length];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = firstSec * 1000 + i * 10_000L;
        }
        long end = atSec * 1000;
        long start = end - rangeSec * 1000;
        int lo = 0;
        while (lo < ts.length && ts[lo] <= start) {
            lo++;
        }
        int hi = lo;
        while (hi < ts.length && ts[hi] <= end) {
            hi++;
        }
        return new Window(ts, values, lo, hi, start, end, rangeSec * 1000);
    }

    @Test
    void extrapolationEdges() {
        // load 10s: zc 0 5 10 ..., nz 100 105 ..., neg -10 -5 0 5 10, late (from 60 s) 1..6, withnan 1 2 NaN 4 5,
        // flat 7 7 7 7, drop 10 2 1 0 5
        double[] zc = {0, 5, 10, 15, 20, 25, 30};
        double[] nz = {100, 105, 110, 115, 120};
        double[] neg = {-10, -5, 0, 5, 10};
        double[] late = {1, 2, 3, 4, 5, 6};
        double[] withNaN = {1, 2, NAN, 4, 5};
        double[] flat = {7, 7, 7, 7};
        double[] drop = {10, 2, 1, 0, 5};
        assertThat(increase(window10(zc, 0, 60, 60))).isEqualTo(30); // increase(zc[1m]) at 60
        assertThat(increase(window10(zc, 0, 30, 60))).isEqualTo(15); // at 30: extrapolated no lower than zero
        assertThat(rate(window10(zc, 0, 35, 60))).isEqualTo(0.29166666666666669);
        assertThat(increase(window10(nz, 0, 40, 60))).isEqualTo(22.5);
        assertThat(increase(window10(nz, 0, 40, 30))).isEqualTo(15);
        assertThat(increase(window10(nz, 0, 45, 30))).isEqualTo(15);
        assertThat(increase(window10(neg, 0, 40, 60))).isEqualTo(22.5); // a negative first value: no zero point
        assertThat(delta(window10(neg, 0, 40, 60))).isEqualTo(22.5);
        assertThat(increase(window10(late, 60, 120, 60))).isEqualTo(6);
        assertThat(rate(window10(late, 60, 110, 60))).isEqualTo(0.10000000000000001);
        assertThat(rate(window10(withNaN, 0, 40, 60))).isEqualTo(0.074999999999999997);
        Window wn = window10(withNaN, 0, 40, 60);
        assertThat(RangeKernels.deriv(wn.ts, wn.vs, wn.lo, wn.hi)).isNaN();
        assertThat(RangeKernels.changes(wn.vs, wn.lo, wn.hi)).isEqualTo(4);
        Window f = window10(flat, 0, 30, 60);
        assertThat(RangeKernels.deriv(f.ts, f.vs, f.lo, f.hi)).isZero();
        assertThat(RangeKernels.predictLinear(f.ts, f.vs, f.lo, f.hi, 30_000, 100)).isEqualTo(7);
        Window d = window10(drop, 0, 40, 60);
        assertThat(increase(d)).isEqualTo(9);
        assertThat(RangeKernels.resets(d.vs, d.lo, d.hi)).isEqualTo(3);
        assertThat(RangeKernels.irate(d.ts, d.vs, d.lo, d.hi)).isEqualTo(0.5);
        assertThat(RangeKernels.idelta(d.ts, d.vs, d.lo, d.hi)).isEqualTo(5);
        assertThat(RangeKernels.predictLinear(d.ts, d.vs, d.lo, d.hi, 40_000, 60)).isEqualTo(-5.9999999999999991);
        assertThat(RangeKernels.deriv(d.ts, d.vs, d.lo, d.hi)).isEqualTo(-0.12);
        assertThat(RangeKernels.stddevOverTime(d.vs, d.lo, d.hi)).isEqualTo(3.6110940170535577);
        assertThat(RangeKernels.avgOverTime(d.vs, d.lo, d.hi)).isEqualTo(3.6000000000000001);
    }

    private static double rate(Window w) {
        return RangeKernels.rate(w.ts, w.vs, w.lo, w.hi, w.start, w.end, w.rangeMs);
    }

    private static double increase(Window w) {
        return RangeKernels.increase(w.ts, w.vs, w.lo, w.hi, w.start, w.end, w.rangeMs);
    }

    private static double delta(Window w) {
        return RangeKernels.delta(w.ts, w.vs, w.lo, w.hi, w.start, w.end, w.rangeMs);
    }

    @Test
    void rateIncreaseDeltaExtrapolateAndCorrectResets() {
        assertThat(rate(window(CTR, 60, 60))).isEqualTo(0.71666666666666679); // rate(ctr[1m]) at 60
        assertThat(rate(window(CTR, 120, 120))).isEqualTo(0.75833333333333319); // rate(ctr[2m]) at 120
        assertThat(rate(window(CTR, 200, 180))).isEqualTo(0.78787878787878773); // rate(ctr[3m]) at 200
        assertThat(increase(window(CTR, 75, 60))).isEqualTo(46.666666666666664); // increase(ctr[1m]) at 75
        assertThat(increase(window(CTR, 195, 180))).isEqualTo(141.81818181818181); // increase(ctr[3m]) at 195
        assertThat(increase(window(CTR, 100, 90))).isEqualTo(81.599999999999994); // increase(ctr[1m30s]) at 100
        assertThat(delta(window(GAUGE, 200, 120))).isEqualTo(11.100000000000001); // delta(gauge[2m]) at 200
        assertThat(delta(window(GAUGE, 90, 60))).isEqualTo(0.66666666666666663); // delta(gauge[1m]) at 90
        // increase(sparse[5m]) at 300: sparse = _ _ 7 _ _ _ 12 _ 13 _ _ _ 2 (a reset, samples far from the end)
        long[] ts = {30_000, 90_000, 120_000, 180_000};
        double[] vs = {7, 12, 13, 2};
        assertThat(RangeKernels.increase(ts, vs, 0, 4, 0, 300_000, 300_000)).isEqualTo(10.933333333333334);
        // rate(sparse[3m]) at 300: a single sample, no point.
        assertThat(RangeKernels.isNoValue(RangeKernels.rate(ts, vs, 3, 4, 120_000, 300_000, 180_000))).isTrue();
    }

    @Test
    void irateIdelta() {
        Window w = window(CTR, 200, 60);
        assertThat(RangeKernels.irate(w.ts, w.vs, w.lo, w.hi)).isEqualTo(0.66666666666666663); // irate(ctr[1m]) at 200
        Window g = window(GAUGE, 200, 60);
        assertThat(RangeKernels.idelta(g.ts, g.vs, g.lo, g.hi)).isEqualTo(10.75); // idelta(gauge[1m]) at 200
        Window r = window(CTR, 185, 30); // the last two samples are 100 and 5: a reset
        assertThat(RangeKernels.irate(r.ts, r.vs, r.lo, r.hi)).isEqualTo(0.33333333333333331); // irate(ctr[30s]) at 185
        assertThat(RangeKernels.isNoValue(RangeKernels.irate(r.ts, r.vs, r.hi - 1, r.hi))).isTrue();
    }

    @Test
    void derivAndPredictLinear() {
        Window w = window(CTR, 200, 120);
        assertThat(RangeKernels.deriv(w.ts, w.vs, w.lo, w.hi)).isEqualTo(-0.1738095238095238); // deriv(ctr[2m]) at 200
        assertThat(RangeKernels.predictLinear(w.ts, w.vs, w.lo, w.hi, 200_000, 300))
                .isEqualTo(-9.7619047619047592); // predict_linear(ctr[2m], 300) at 200
        Window g = window(GAUGE, 200, 180);
        assertThat(RangeKernels.deriv(g.ts, g.vs, g.lo, g.hi)).isNaN(); // deriv(gauge[3m]) at 200 (a NaN inside)
        double[] constant = {4, 4, 4, 4};
        long[] ts = {0, 15_000, 30_000, 45_000};
        assertThat(RangeKernels.deriv(ts, constant, 0, 4)).isZero();
        assertThat(RangeKernels.predictLinear(ts, constant, 0, 4, 60_000, 100)).isEqualTo(4);
    }

    @Test
    void changesAndResets() {
        Window g = window(GAUGE, 300, 300);
        assertThat(RangeKernels.changes(g.vs, g.lo, g.hi)).isEqualTo(10); // changes(gauge[5m]) at 300
        Window c = window(CTR, 300, 300);
        assertThat(RangeKernels.resets(c.vs, c.lo, c.hi)).isEqualTo(2); // resets(ctr[5m]) at 300
        assertThat(RangeKernels.changes(new double[] {NAN, NAN, 1}, 0, 3)).isEqualTo(1);
    }

    @Test
    void overTimeAggregations() {
        Window g = window(GAUGE, 300, 300);
        Window c = window(CTR, 300, 300);
        Window s = window(SMALLF, 300, 300);
        Window b = window(BIG, 300, 300);
        assertThat(RangeKernels.avgOverTime(g.vs, g.lo, g.hi)).isNaN(); // avg_over_time(gauge[5m])
        assertThat(RangeKernels.avgOverTime(s.vs, s.lo, s.hi)).isEqualTo(0.42857142864285713); // avg_over_time(smallf[5m])
        assertThat(RangeKernels.avgOverTime(b.vs, b.lo, b.hi)).isEqualTo(1e308); // avg_over_time(big[5m]): no overflow
        assertThat(RangeKernels.sumOverTime(s.vs, s.lo, s.hi)).isEqualTo(3.0000000005); // sum_over_time(smallf[5m]): Kahan
        assertThat(RangeKernels.sumOverTime(g.vs, g.lo, g.hi)).isNaN();
        assertThat(RangeKernels.minOverTime(g.vs, g.lo, g.hi)).isEqualTo(-7); // min_over_time(gauge[5m])
        assertThat(RangeKernels.maxOverTime(g.vs, g.lo, g.hi)).isEqualTo(11); // max_over_time(gauge[5m])
        Window g1 = window(GAUGE, 60, 60);
        assertThat(RangeKernels.maxOverTime(g1.vs, g1.lo, g1.hi)).isEqualTo(8); // max_over_time(gauge[1m]) at 60
        assertThat(RangeKernels.tsOfMaxOverTime(g.ts, g.vs, g.lo, g.hi)).isEqualTo(165); // ts_of_max_over_time(gauge[5m])
        assertThat(RangeKernels.tsOfMinOverTime(g.ts, g.vs, g.lo, g.hi)).isEqualTo(120); // ts_of_min_over_time(gauge[5m])
        assertThat(RangeKernels.stddevOverTime(c.vs, c.lo, c.hi)).isEqualTo(30.342034428403743); // stddev_over_time(ctr[5m])
        assertThat(RangeKernels.stdvarOverTime(c.vs, c.lo, c.hi)).isEqualTo(920.63905325443795); // stdvar_over_time(ctr[5m])
        assertThat(RangeKernels.stddevOverTime(s.vs, s.lo, s.hi)).isEqualTo(534522483824848.75); // stddev_over_time(smallf[5m])
    }

    @Test
    void quantilesOverTime() {
        Window c = window(CTR, 300, 300);
        Window g = window(GAUGE, 300, 300);
        double[] scratch = new double[32];
        assertThat(RangeKernels.quantileOverTime(0.9, c.vs, c.lo, c.hi, scratch)).isEqualTo(86);
        assertThat(RangeKernels.quantileOverTime(0.5, g.vs, g.lo, g.hi, scratch)).isEqualTo(2); // NaN sorts first
        assertThat(RangeKernels.quantileOverTime(0, c.vs, c.lo, c.hi, scratch)).isEqualTo(3);
        assertThat(RangeKernels.quantileOverTime(1, c.vs, c.lo, c.hi, scratch)).isEqualTo(100);
        assertThat(RangeKernels.quantileOverTime(1.5, c.vs, c.lo, c.hi, scratch)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(RangeKernels.madOverTime(c.vs, c.lo, c.hi, scratch)).isEqualTo(23); // mad_over_time(ctr[5m])
        assertThat(RangeKernels.madOverTime(g.vs, g.lo, g.hi, scratch)).isNaN();
        // The input window is left as it was.
        assertThat(c.vs).containsExactly(CTR);
        // quantile(0.3, ...) over the values 1, 5, 2, NaN: NaN is the lowest
        assertThat(Quantiles.quantile(0.3, new double[] {1, 5, 2, NAN}, 4)).isNaN();
    }

    @Test
    void doubleExponentialSmoothing() {
        Window c = window(CTR, 300, 300);
        assertThat(RangeKernels.doubleExponentialSmoothing(c.vs, c.lo, c.hi, 0.3, 0.6)).isEqualTo(54.290700315762351);
        assertThatThrownBy(() -> RangeKernels.doubleExponentialSmoothing(c.vs, c.lo, c.hi, 1, 0.5))
                .hasMessage("invalid smoothing factor. Expected: 0 < sf < 1, got: 1.000000");
        assertThatThrownBy(() -> RangeKernels.doubleExponentialSmoothing(c.vs, c.lo, c.hi, 0.5, 0))
                .hasMessage("invalid trend factor. Expected: 0 < tf < 1, got: 0.000000");
        assertThat(RangeKernels.isNoValue(RangeKernels.doubleExponentialSmoothing(c.vs, c.lo, c.lo + 1, 0.5, 0.5))).isTrue();
    }

    private static double hq(double q, double[] bounds, double[] counts) {
        return Quantiles.bucketQuantile(q, bounds.clone(), counts.clone(), bounds.length, null);
    }

    @Test
    void histogramQuantileOverClassicBuckets() {
        double inf = Double.POSITIVE_INFINITY;
        // Given out of order on purpose: the kernel sorts by bound.
        double[] hb = {1, 0.1, inf, 0.5};
        double[] hc = {9, 1, 10, 5};
        assertThat(hq(0, hb, hc)).isEqualTo(0);
        assertThat(hq(0.25, hb, hc)).isEqualTo(0.25);
        assertThat(hq(0.5, hb, hc)).isEqualTo(0.5);
        assertThat(hq(0.9, hb, hc)).isEqualTo(1);
        assertThat(hq(0.99, hb, hc)).isEqualTo(1);
        assertThat(hq(1, hb, hc)).isEqualTo(1);
        assertThat(hq(-1, hb, hc)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(hq(2, hb, hc)).isEqualTo(inf);
        assertThat(hq(NAN, hb, hc)).isNaN();
        // Non-monotonic counts are raised; the info slots say where.
        double[] info = new double[4];
        double[] nb = {1, 2, 5, inf};
        assertThat(Quantiles.bucketQuantile(0.5, nb.clone(), new double[] {5, 4, 8, 8}, 4, info)).isEqualTo(0.80000000000000004);
        assertThat(info).containsExactly(1, 2, 2, 1);
        assertThat(hq(0.9, nb, new double[] {5, 4, 8, 8})).isEqualTo(4.2000000000000002);
        assertThat(hq(0.5, new double[] {1, 2}, new double[] {3, 5})).isNaN(); // no +Inf bucket
        double[] negb = {-1, 0, inf};
        double[] negc = {2, 4, 6};
        assertThat(hq(0.1, negb, negc)).isEqualTo(-1);
        assertThat(hq(0.5, negb, negc)).isEqualTo(-0.5);
        assertThat(hq(0.9, negb, negc)).isEqualTo(0);
        assertThat(hq(0.5, new double[] {1, 1, inf}, new double[] {2, 3, 10})).isEqualTo(1); // equal bounds summed
        assertThat(hq(0.5, new double[] {1, inf}, new double[] {0, 0})).isNaN(); // no observations
        assertThat(hq(0.5, new double[] {1, 2, 3, inf}, new double[] {5, 5.000000000000001, 9, 10})).isEqualTo(1);
        assertThat(hq(0.5, new double[] {inf}, new double[] {10})).isNaN(); // one bucket
        assertThat(hq(0.9, new double[] {1, 2, inf}, new double[] {2, 4, 10})).isEqualTo(2); // in the +Inf bucket
        assertThat(hq(0.3, new double[] {1, 2, inf}, new double[] {2, 4, 10})).isEqualTo(1.5);
    }

    @Test
    void mathAsGo() {
        assertThat(MathKernels.pow(1, NAN)).isEqualTo(1); // vector(1) ^ vector(NaN)
        assertThat(MathKernels.pow(-1, Double.POSITIVE_INFINITY)).isEqualTo(1);
        assertThat(MathKernels.pow(-8, 1.0 / 3)).isNaN();
        assertThat(MathKernels.pow(2, 0.5)).isEqualTo(1.4142135623730951);
        assertThat(MathKernels.pow(10, -2)).isEqualTo(0.01);
        assertThat(MathKernels.pow(-2, 3)).isEqualTo(-8);
        assertThat(MathKernels.mod(5.5, -2)).isEqualTo(1.5);
        assertThat(MathKernels.mod(-5.5, 2)).isEqualTo(-1.5);
        assertThat(MathKernels.round(2.5, 1)).isEqualTo(3);
        assertThat(MathKernels.round(-2.5, 1)).isEqualTo(-2);
        assertThat(MathKernels.round(1.2345, 0.01)).isEqualTo(1.23);
        assertThat(MathKernels.round(12345, 100)).isEqualTo(12300);
        assertThat(MathKernels.round(0.1 + 0.2, 0.1)).isEqualTo(0.29999999999999999);
        assertThat(MathKernels.round(-0.5, 1)).isEqualTo(0);
        assertThat(MathKernels.round(Double.POSITIVE_INFINITY, 0.5)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(MathKernels.round(5, 0)).isNaN();
        assertThat(Double.doubleToRawLongBits(MathKernels.sgn(-0.0))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(MathKernels.sgn(NAN)).isNaN();
        assertThat(MathKernels.deg(1)).isEqualTo(57.295779513082323);
        assertThat(MathKernels.rad(180)).isEqualTo(3.1415926535897931);
        // Java's and Go's libraries agree with Prometheus' answers to within rounding.
        assertThat(Math.sin(1e10)).isCloseTo(-0.48750602508751073, within(1e-15));
        assertThat(Math.cos(0.7)).isCloseTo(0.76484218728448838, within(1e-15));
        assertThat(Math.tan(1.5)).isCloseTo(14.101419947171719, within(1e-13));
        assertThat(Math.asin(0.3)).isCloseTo(0.30469265401539752, within(1e-15));
        assertThat(Math.acos(0.3)).isCloseTo(1.266103672779499, within(1e-15));
        assertThat(Math.atan(3)).isCloseTo(1.2490457723982544, within(1e-15));
        assertThat(Math.sinh(2)).isCloseTo(3.626860407847019, within(1e-15));
        assertThat(Math.cosh(2)).isCloseTo(3.7621956910836314, within(1e-15));
        assertThat(Math.tanh(0.5)).isCloseTo(0.46211715726000974, within(1e-15));
        assertThat(Math.exp(1.5)).isCloseTo(4.4816890703380654, within(1e-15));
        assertThat(Math.log(7)).isCloseTo(1.9459101490553132, within(1e-15));
        assertThat(Math.log10(2)).isCloseTo(0.3010299956639812, within(1e-15));
        assertThat(MathKernels.log10(1000)).isEqualTo(3); // log10(vector(1000))
        assertThat(MathKernels.log10(1e-5)).isEqualTo(-5);
        assertThat(MathKernels.log10(123.456)).isEqualTo(2.0915122016277716);
        assertThat(MathKernels.log2(8)).isEqualTo(3); // log2(vector(8))
        assertThat(MathKernels.log2(10)).isEqualTo(3.3219280948873622);
        assertThat(MathKernels.log2(0.1)).isEqualTo(-3.3219280948873622);
        assertThat(MathKernels.log2(1e300)).isEqualTo(996.57842846620872);
        assertThat(MathKernels.log2(0)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(MathKernels.log2(-1)).isNaN();
        assertThat(MathKernels.log2(Double.MIN_VALUE)).isEqualTo(-1074);
        assertThat(Math.atan2(0.7, -3)).isCloseTo(2.9123607203127979, within(1e-15));
    }

    @Test
    void clampAndMinMaxAsGo() {
        double inf = Double.POSITIVE_INFINITY;
        assertThat(MathKernels.clamp(NAN, 0, 10)).isNaN(); // clamp(vector(NaN), 0, 10)
        assertThat(MathKernels.clamp(-inf, 0, NAN)).isEqualTo(0); // clamp(vector(-Inf), 0, NaN)
        assertThat(MathKernels.clamp(5, NAN, 10)).isNaN();
        assertThat(MathKernels.clamp(5, 0, NAN)).isNaN();
        assertThat(MathKernels.clamp(inf, NAN, 10)).isNaN();
        assertThat(MathKernels.clamp(NAN, -inf, -inf)).isEqualTo(-inf); // clamp_max(vector(NaN), -Inf)
        assertThat(MathKernels.clamp(NAN, -inf, inf)).isNaN(); // clamp_max(vector(NaN), Inf)
        assertThat(MathKernels.clamp(NAN, inf, inf)).isEqualTo(inf); // clamp_min(vector(NaN), Inf)
        assertThat(MathKernels.clamp(NAN, -inf, inf)).isNaN(); // clamp_min(vector(NaN), -Inf)
        assertThat(Double.doubleToRawLongBits(MathKernels.clamp(-0.0, 0, inf))).isZero(); // clamp_min(vector(-0), 0) = +0
        assertThat(MathKernels.goMax(NAN, inf)).isEqualTo(inf); // max_of(NaN, Inf)
        assertThat(MathKernels.goMin(NAN, -inf)).isEqualTo(-inf); // min_of(NaN, -Inf)
        assertThat(MathKernels.goMax(NAN, 1)).isNaN(); // max_of(NaN, 1)
    }

    @Test
    void datesAsGo() {
        assertThat(DateKernels.daysInMonth(1709164800)).isEqualTo(29); // 2024-02-29
        assertThat(DateKernels.daysInMonth(1675209600)).isEqualTo(28);
        assertThat(DateKernels.daysInMonth(951782400)).isEqualTo(29); // 2000-02-29
        assertThat(DateKernels.daysInMonth(4107542400.0)).isEqualTo(31);
        assertThat(DateKernels.dayOfWeek(1709164800.9)).isEqualTo(4);
        assertThat(DateKernels.dayOfYear(1735603200)).isEqualTo(366);
        assertThat(DateKernels.hour(1709164800 + 3600 * 13 + 59)).isEqualTo(13);
        assertThat(DateKernels.minute(1709164800 + 3600 * 13 + 59 * 60 + 59)).isEqualTo(59);
        assertThat(DateKernels.month(-1)).isEqualTo(12);
        assertThat(DateKernels.dayOfMonth(-86401)).isEqualTo(30);
        assertThat(DateKernels.year(253402300800.0)).isEqualTo(10000);
        assertThat(DateKernels.year(-62135596801.0)).isEqualTo(0);
        assertThat(DateKernels.dayOfMonth(-62135596801.0)).isEqualTo(31);
        assertThat(DateKernels.month(-62135596801.0)).isEqualTo(12);
        assertThat(DateKernels.year(-62167219201.0)).isEqualTo(-1);
        assertThat(DateKernels.dayOfYear(-62167219201.0)).isEqualTo(365);
        assertThat(DateKernels.year(1e18)).isEqualTo(31688740476.0);
        assertThat(DateKernels.year(-9e18)).isEqualTo(-285198644592.0);
        assertThat(DateKernels.month(-9e18)).isEqualTo(9);
        assertThat(DateKernels.year(9e18)).isEqualTo(285198648531.0);
        assertThat(DateKernels.dayOfYear(9e18)).isEqualTo(111);
        assertThat(DateKernels.year(-1e17)).isEqualTo(-3168871881.0);
        assertThat(DateKernels.dayOfWeek(-1e17)).isEqualTo(4);
        // NaN and ±Inf become Go's smallest int64 second.
        assertThat(DateKernels.year(NAN)).isEqualTo(292277026596.0);
        assertThat(DateKernels.year(Double.POSITIVE_INFINITY)).isEqualTo(292277026596.0);
        assertThat(DateKernels.month(NAN)).isEqualTo(12);
        assertThat(DateKernels.dayOfMonth(NAN)).isEqualTo(4);
        assertThat(DateKernels.dayOfWeek(NAN)).isEqualTo(0);
        assertThat(DateKernels.dayOfYear(NAN)).isEqualTo(339);
        assertThat(DateKernels.daysInMonth(NAN)).isEqualTo(31);
        assertThat(DateKernels.hour(NAN)).isEqualTo(15);
        assertThat(DateKernels.minute(NAN)).isEqualTo(30);
    }
}
