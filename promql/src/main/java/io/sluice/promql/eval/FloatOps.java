package io.sluice.promql.eval;

import io.sluice.promql.eval.kernels.Kahan;
import java.math.BigDecimal;

/** Small float helpers with Prometheus' semantics (Kahan-Neumaier increments, Go's number texts, natural order). */
public final class FloatOps {
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

    /** Natural order compare of label values (digits runs compared as numbers), as Prometheus' natsort. */
    static int natCompare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (Character.isDigit(ca) && Character.isDigit(cb)) {
                int si = i;
                int sj = j;
                while (i < a.length() && Character.isDigit(a.charAt(i))) {
                    i++;
                }
                while (j < b.length() && Character.isDigit(b.charAt(j))) {
                    j++;
                }
                String na = a.substring(si, i).replaceFirst("^0+(?=.)", "");
                String nb = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
                if (na.length() != nb.length()) {
                    return Integer.compare(na.length(), nb.length());
                }
                int c = na.compareTo(nb);
                if (c != 0) {
                    return c;
                }
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
