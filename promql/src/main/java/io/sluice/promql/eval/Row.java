package io.sluice.promql.eval;

import io.sluice.promql.labels.Labels;

/**
 * One series over every step of an evaluation grid: labels and one value per step, {@link #ABSENT}
 * where the series has no point. {@code dropName}: the metric name is to be removed when the query
 * ends (Prometheus' delayed name removal).
 */
final class Row {
    /** A signalling NaN no arithmetic produces (any operation on it yields a quiet NaN). */
    static final long ABSENT_BITS = io.sluice.promql.eval.kernels.RangeKernels.NO_VALUE_BITS;
    static final double ABSENT = Double.longBitsToDouble(ABSENT_BITS);

    Labels labels;
    boolean dropName;
    double[] v;

    Row(Labels labels, boolean dropName, double[] v) {
        this.labels = labels;
        this.dropName = dropName;
        this.v = v;
    }

    static boolean absent(double d) {
        return Double.doubleToRawLongBits(d) == ABSENT_BITS;
    }

    static double[] absentArray(int n) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, ABSENT);
        return a;
    }

    boolean any() {
        for (double d : v) {
            if (!absent(d)) {
                return true;
            }
        }
        return false;
    }

    int count() {
        int c = 0;
        for (double d : v) {
            if (!absent(d)) {
                c++;
            }
        }
        return c;
    }

    Row copy() {
        return new Row(labels, dropName, v.clone());
    }
}
