package io.sluice.promql.eval;

import io.sluice.promql.eval.kernels.Kahan;
import io.sluice.promql.labels.Labels;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Small float helpers with Prometheus' semantics (Kahan-Neumaier increments, Go's number texts, natural order). */
public final class FloatOps {
    /** The length up to which Go's sorts use an insertion sort. */
    static final int GO_INSERTION_SORT_MAX = 12;

    private FloatOps() {
    }

    /** Kahan-Neumaier increment: returns the new sum and stores the new compensation in {@code c[0]}. */
    static double kahanInc(double inc, double sum, double[] c) {
        double t = sum + inc;
        c[0] = Kahan.compensate(c[0], sum, inc, t);
        return t;
    }

    /** Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}. */
    static String formatPlain(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == 0) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-0" : "0";
        }
        String s = new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
        return s;
    }

    /** Go's {@code %g} / {@code strconv.FormatFloat(v, 'g', -1, 64)}: shortest digits, exponent when below 1e-4 or from 1e6. */
    public static String formatG(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        BigDecimal bd = new BigDecimal(Double.toString(v)).stripTrailingZeros();
        int exp = bd.precision() - bd.scale() - 1;
        if (exp < -4 || exp >= 6) {
            String digits = bd.unscaledValue().abs().toString();
            StringBuilder sb = new StringBuilder();
            if (v < 0) {
                sb.append('-');
            }
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append('e').append(exp < 0 ? '-' : '+');
            int ae = Math.abs(exp);
            if (ae < 10) {
                sb.append('0');
            }
            return sb.append(ae).toString();
        }
        return bd.toPlainString();
    }

    /** Go's {@code %.2g}: two significant digits (half-even on the exact value), trailing zeros dropped. */
    public static String formatG2(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
            return formatG(v);
        }
        BigDecimal bd = new BigDecimal(v).round(new java.math.MathContext(2, java.math.RoundingMode.HALF_EVEN)).stripTrailingZeros();
        int exp = bd.precision() - bd.scale() - 1;
        if (exp < -4 || exp >= 2) {
            String digits = bd.unscaledValue().abs().toString();
            StringBuilder sb = new StringBuilder(v < 0 ? "-" : "").append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            int ae = Math.abs(exp);
            return sb.append('e').append(exp < 0 ? '-' : '+').append(ae < 10 ? "0" : "").append(ae).toString();
        }
        return bd.toPlainString();
    }

    /**
     * Whether label value {@code a} precedes {@code b} in the natural order of Prometheus' {@code sort_by_label}
     * (its natsort package). Both are cut into runs of ASCII digits and runs of other characters, compared in
     * turn: two digit runs that fit a signed 64-bit number as numbers, any other pair as text (by code point,
     * the order of Go's UTF-8 bytes). After an equal pair, the end of {@code a}'s runs makes it precede, then
     * the end of {@code b}'s makes it follow. This is not a total order: the empty value precedes nothing and
     * nothing precedes it, and {@code "5"} and {@code "05"} each precede the other; the order of such values
     * is then the sort's, as in Prometheus ({@link #goSort}).
     */
    static boolean natLess(String a, String b) {
        List<String> x = runs(a);
        List<String> y = runs(b);
        for (int i = 0; i < x.size(); i++) {
            if (i >= y.size()) {
                return false;
            }
            String p = x.get(i);
            String q = y.get(i);
            long np = digitRun(p);
            long nq = digitRun(q);
            if (np >= 0 && nq >= 0) {
                if (np != nq) {
                    return np < nq;
                }
            } else if (!p.equals(q)) {
                return Labels.compareUtf8(p, q) < 0;
            }
            if (i == x.size() - 1) {
                return true;
            }
            if (i == y.size() - 1) {
                return false;
            }
        }
        return false;
    }

    /** The maximal runs of ASCII digits and of other characters, in order. */
    private static List<String> runs(String s) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 1; i <= s.length(); i++) {
            if (i == s.length() || isAsciiDigit(s.charAt(i)) != isAsciiDigit(s.charAt(i - 1))) {
                out.add(s.substring(from, i));
                from = i;
            }
        }
        return out;
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** A run of digits as a number; -1 for a run of other characters or a number beyond 2^63 - 1. */
    private static long digitRun(String run) {
        if (!isAsciiDigit(run.charAt(0))) {
            return -1;
        }
        try {
            return Long.parseLong(run);
        } catch (NumberFormatException beyond) {
            return -1;
        }
    }

    /**
     * Sorts as Go's {@code slices.SortFunc} orders up to 12 elements: an insertion sort, each element moved
     * back while it compares below its neighbour; so where the comparison is no total order (see
     * {@link #natLess}) the result is Prometheus'. Longer lists are merge-sorted (stable, and never
     * refusing an inconsistent comparison, which {@link List#sort} may); Go's pattern-defeating quicksort
     * can order such elements differently there.
     */
    static <T> void goSort(List<T> list, Comparator<? super T> cmp) {
        if (list.size() <= GO_INSERTION_SORT_MAX) {
            for (int i = 1; i < list.size(); i++) {
                for (int j = i; j > 0 && cmp.compare(list.get(j), list.get(j - 1)) < 0; j--) {
                    list.set(j, list.set(j - 1, list.get(j)));
                }
            }
            return;
        }
        List<T> sorted = mergeSorted(new ArrayList<>(list), cmp);
        for (int i = 0; i < sorted.size(); i++) {
            list.set(i, sorted.get(i));
        }
    }

    private static <T> List<T> mergeSorted(List<T> in, Comparator<? super T> cmp) {
        if (in.size() < 2) {
            return in;
        }
        int mid = in.size() / 2;
        List<T> left = mergeSorted(new ArrayList<>(in.subList(0, mid)), cmp);
        List<T> right = mergeSorted(new ArrayList<>(in.subList(mid, in.size())), cmp);
        List<T> out = new ArrayList<>(in.size());
        int i = 0;
        int j = 0;
        while (i < left.size() && j < right.size()) {
            out.add(cmp.compare(right.get(j), left.get(i)) < 0 ? right.get(j++) : left.get(i++));
        }
        out.addAll(left.subList(i, left.size()));
        out.addAll(right.subList(j, right.size()));
        return out;
    }
}
