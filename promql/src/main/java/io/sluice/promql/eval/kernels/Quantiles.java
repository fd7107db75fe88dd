package io.sluice.promql.eval.kernels;

import java.util.Arrays;

/** {@code quantile} (the aggregation and {@code quantile_over_time}) and classic-bucket {@code histogram_quantile}. */
public final class Quantiles {
    /** Prometheus' tolerance below which bucket counts count as equal ({@code smallDeltaTolerance}). */
    public static final double SMALL_DELTA_TOLERANCE = 1e-12;

    private Quantiles() {
    }

    /**
     * The q-quantile of {@code values[0, n)} by linear interpolation between the closest ranks (Prometheus'
     * {@code quantile}): NaN for no values or a NaN q, -Inf for q &lt; 0, +Inf for q &gt; 1. Sorts the
     * values in place, NaNs first (as Prometheus orders them).
     */
    public static double quantile(double q, double[] values, int n) {
        if (n == 0 || Double.isNaN(q)) {
            return Double.NaN;
        }
        if (q < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (q > 1) {
            return Double.POSITIVE_INFINITY;
        }
        sortNaNFirst(values, n);
        double rank = q * (n - 1);
        double lowerIndex = Math.max(0, Math.floor(rank));
        double upperIndex = Math.min(n - 1, lowerIndex + 1);
        double weight = rank - Math.floor(rank);
        return values[(int) lowerIndex] * (1 - weight) + values[(int) upperIndex] * weight;
    }

    /** Sorts ascending with every NaN before the numbers. */
    static void sortNaNFirst(double[] values, int n) {
        Arrays.sort(values, 0, n); // NaNs last
        int nan = 0;
        while (nan < n && Double.isNaN(values[n - 1 - nan])) {
            nan++;
        }
        if (nan > 0 && nan < n) {
            System.arraycopy(values, 0, values, nan, n - nan);
            Arrays.fill(values, 0, nan, Double.NaN);
        }
    }

    /**
     * {@code histogram_quantile} over classic buckets: {@code upperBounds[i]} is bucket i's {@code le},
     * {@code counts[i]} its cumulative count (any order; sorted in place, buckets of equal bound summed).
     * NaN without a +Inf bucket, with fewer than two buckets or no observations. Counts that decrease are
     * raised to keep the buckets monotonic, and counts within {@link #SMALL_DELTA_TOLERANCE} of the previous
     * one are taken as equal, as Prometheus does.
     *
     * @param info null, or at least 4 slots that receive {forced monotonicity (1 or 0), lowest bucket bound
     *             raised, highest bucket bound raised, largest amount raised} for Prometheus' info annotation
     * @return the quantile; n is the number of buckets in the arrays
     */
    public static double bucketQuantile(double q, double[] upperBounds, double[] counts, int n, double[] info) {
        if (info != null) {
            info[0] = 0;
            info[1] = Double.POSITIVE_INFINITY;
            info[2] = Double.NEGATIVE_INFINITY;
            info[3] = 0;
        }
        if (Double.isNaN(q)) {
            return Double.NaN;
        }
        if (q < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (q > 1) {
            return Double.POSITIVE_INFINITY;
        }
        if (n == 0) {
            return Double.NaN;
        }
        sortByBound(upperBounds, counts, n);
        if (upperBounds[n - 1] != Double.POSITIVE_INFINITY) {
            return Double.NaN;
        }
        // Coalesce buckets of the same bound.
        int m = 0;
        for (int i = 1; i < n; i++) {
            if (upperBounds[i] == upperBounds[m]) {
                counts[m] += counts[i];
            } else {
                m++;
                upperBounds[m] = upperBounds[i];
                counts[m] = counts[i];
            }
        }
        n = m + 1;
        ensureMonotonic(upperBounds, counts, n, info);
        if (n < 2) {
            return Double.NaN;
        }
        double observations = counts[n - 1];
        if (observations == 0) {
            return Double.NaN;
        }
        double rank = q * observations;
        // First bucket (among all but the last) whose count reaches the rank.
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (counts[mid] >= rank) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        int b = lo;
        if (b == n - 1) {
            return upperBounds[n - 2];
        }
        if (b == 0 && upperBounds[0] <= 0) {
            return upperBounds[0];
        }
        double bucketStart = 0;
        double bucketEnd = upperBounds[b];
        double count = counts[b];
        if (b > 0) {
            bucketStart = upperBounds[b - 1];
            count -= counts[b - 1];
            rank -= counts[b - 1];
        }
        return bucketStart + (bucketEnd - bucketStart) * (rank / count);
    }

    private static void ensureMonotonic(double[] bounds, double[] counts, int n, double[] info) {
        double prev = counts[0];
        for (int i = 1; i < n; i++) {
            double curr = counts[i];
            if (curr == prev) {
                continue;
            }
            if (almostEqual(prev, curr, SMALL_DELTA_TOLERANCE)) {
                counts[i] = prev;
                continue;
            }
            if (curr < prev) {
                counts[i] = prev;
                if (info != null) {
                    info[0] = 1;
                    info[1] = Math.min(info[1], bounds[i]);
                    info[2] = Math.max(info[2], bounds[i]);
                    info[3] = Math.max(info[3], prev - curr);
                }
                continue;
            }
            prev = curr;
        }
    }

    private static final double MIN_NORMAL = Double.MIN_NORMAL;

    /** Prometheus' {@code almost.Equal} (relative tolerance; both NaN counts as equal). */
    public static boolean almostEqual(double a, double b, double epsilon) {
        if (Double.isNaN(a) && Double.isNaN(b)) {
            return true;
        }
        if (a == b) {
            return true;
        }
        double absSum = Math.abs(a) + Math.abs(b);
        double diff = Math.abs(a - b);
        if (a == 0 || b == 0 || absSum < MIN_NORMAL) {
            return diff < epsilon * MIN_NORMAL;
        }
        return diff / Math.min(absSum, Double.MAX_VALUE) < epsilon;
    }

    /** Insertion sort for the usual handful of buckets; an index sort beyond (rare). */
    private static void sortByBound(double[] bounds, double[] counts, int n) {
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = bounds[i - 1] <= bounds[i];
        }
        if (sorted) {
            return;
        }
        if (n <= 64) {
            for (int i = 1; i < n; i++) {
                double b = bounds[i];
                double c = counts[i];
                int j = i - 1;
                while (j >= 0 && bounds[j] > b) {
                    bounds[j + 1] = bounds[j];
                    counts[j + 1] = counts[j];
                    j--;
                }
                bounds[j + 1] = b;
                counts[j + 1] = c;
            }
            return;
        }
        Integer[] idx = new Integer[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (x, y) -> Double.compare(bounds[x], bounds[y]));
        double[] b2 = new double[n];
        double[] c2 = new double[n];
        for (int i = 0; i < n; i++) {
            b2[i] = bounds[idx[i]];
            c2[i] = counts[idx[i]];
        }
        System.arraycopy(b2, 0, bounds, 0, n);
        System.arraycopy(c2, 0, counts, 0, n);
    }
}
