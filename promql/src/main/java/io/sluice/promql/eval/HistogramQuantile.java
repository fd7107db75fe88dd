package io.sluice.promql.eval;

import io.sluice.promql.Annotation;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.eval.kernels.Quantiles;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.parse.GoStrings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** histogram_quantile over classic {@code le} buckets: series grouped by their labels without {@code le}. */
final class HistogramQuantile {
    private HistogramQuantile() {
    }

    private static final class Group {
        final Labels labels;
        final List<double[]> values = new ArrayList<>();
        final List<Double> bounds = new ArrayList<>();
        boolean dropName;

        Group(Labels labels) {
            this.labels = labels;
        }
    }

    /** histogram_quantile(q, v), histogram_fraction(lower, upper, v) or histogram_quantiles(v, "label", q...). */
    static Evaluator.Val eval(Evaluator ev, Expr.Call c, Grid g) {
        String fn = c.function();
        List<Expr> args = c.args();
        int n = g.n();
        List<double[]> qs = new ArrayList<>();
        double[] lower = null;
        double[] upper = null;
        String quantileLabel = null;
        Expr vecArg;
        switch (fn) {
            case "histogram_fraction" -> {
                lower = ev.evalScalar(args.get(0), g);
                upper = ev.evalScalar(args.get(1), g);
                vecArg = args.get(2);
            }
            case "histogram_quantiles" -> {
                vecArg = args.get(0);
                quantileLabel = LabelFunctions.str(args.get(1));
                for (int i = 2; i < args.size(); i++) {
                    qs.add(ev.evalScalar(args.get(i), g));
                }
            }
            default -> {
                qs.add(ev.evalScalar(args.get(0), g));
                vecArg = args.get(1);
            }
        }
        for (int qi = 0; qi < qs.size(); qi++) {
            double[] q = qs.get(qi);
            for (int i = 0; i < n; i++) {
                if (Double.isNaN(q[i]) || q[i] < 0 || q[i] > 1) {
                    ev.warn("PromQL warning: quantile value should be between 0 and 1, got " + FloatOps.formatG(q[i]),
                            args.get(fn.equals("histogram_quantiles") ? qi + 2 : 0));
                }
            }
        }
        RowSource src = ev.evalVector(vecArg, g);
        Map<Labels, Group> groups = new LinkedHashMap<>();
        for (Row r = src.next(); r != null; r = src.next()) {
            String le = r.labels.get("le");
            double ub;
            try {
                ub = parseGoFloat(le);
            } catch (NumberFormatException e) {
                String name = ev.delayedNameRemoval() ? r.labels.metricName() : ""; // as Prometheus: no name unless delayed
                String msg = "PromQL warning: bucket label \"le\" is missing or has a malformed value of " + GoStrings.quote(le == null ? "" : le);
                if (!name.isEmpty()) {
                    msg += " for metric name " + GoStrings.quote(name);
                }
                ev.warn(msg, vecArg);
                continue;
            }
            Labels key = r.labels.without(List.of("le"));
            Group grp = groups.computeIfAbsent(key, Group::new);
            grp.values.add(r.v.clone());
            grp.bounds.add(ub);
            ev.addSamples(r.count());
        }
        List<Row> out = new ArrayList<>();
        double[] ubs = new double[16];
        double[] cnt = new double[16];
        double[] info = new double[4];
        int outputs = fn.equals("histogram_fraction") ? 1 : qs.size();
        for (int qi = 0; qi < outputs; qi++) {
            for (Group grp : groups.values()) {
                double[] v = Row.absentArray(n);
                boolean any = false;
                for (int i = 0; i < n; i++) {
                    int k = 0;
                    for (int j = 0; j < grp.values.size(); j++) {
                        double x = grp.values.get(j)[i];
                        if (!Row.absent(x)) {
                            if (k == ubs.length) {
                                ubs = Arrays.copyOf(ubs, k * 2);
                                cnt = Arrays.copyOf(cnt, k * 2);
                            }
                            ubs[k] = grp.bounds.get(j);
                            cnt[k++] = x;
                        }
                    }
                    if (k == 0) {
                        continue;
                    }
                    any = true;
                    if (lower != null) {
                        v[i] = bucketFraction(lower[i], upper[i], ubs, cnt, k);
                        continue;
                    }
                    v[i] = Quantiles.bucketQuantile(qs.get(qi)[i], ubs, cnt, k, info);
                    if (info[0] != 0) {
                        String name = ev.delayedNameRemoval() ? grp.labels.metricName() : "";
                        ev.info(Annotation.forcedMonotonicity("PromQL info: input to histogram_quantile needed to be fixed for "
                                + "monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)"
                                + (name.isEmpty() ? "" : " for metric name " + GoStrings.quote(name)),
                                vecArg.pos().start(), g.t(i), info[1], info[2], info[3]));
                    }
                }
                if (!any) {
                    continue;
                }
                if (quantileLabel == null) {
                    out.add(new Row(grp.labels, true, v));
                } else {
                    // Each quantile's series: the group's labels plus the quantile label (per step the quantile may vary).
                    double[] q = qs.get(qi);
                    Map<String, double[]> byLabel = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        if (!Row.absent(v[i])) {
                            byLabel.computeIfAbsent(openMetricsFloat(q[i]), x -> Row.absentArray(n))[i] = v[i];
                        }
                    }
                    for (Map.Entry<String, double[]> e : byLabel.entrySet()) {
                        out.add(new Row(grp.labels.toBuilder().set(quantileLabel, e.getKey()).build(), true, e.getValue()));
                    }
                }
            }
        }
        return new Evaluator.VecVal(RowSource.of(BinaryOps.mergeByLabels(out, n)));
    }

    /** Prometheus' FormatOpenMetricsFloat: Go's shortest 'g' text, ".0" added to integers. */
    static String openMetricsFloat(double f) {
        if (Double.isNaN(f)) {
            return "NaN";
        }
        if (Double.isInfinite(f)) {
            return f > 0 ? "+Inf" : "-Inf";
        }
        String s = FloatOps.formatG(f);
        return s.contains(".") || s.contains("e") ? s : s + ".0";
    }

    static double bucketFraction(double lower, double upper, double[] ubIn, double[] cntIn, int kIn) {
        Integer[] idx = new Integer[kIn];
        for (int i = 0; i < kIn; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Double.compare(ubIn[a], ubIn[b]));
        double[] ub = new double[kIn];
        double[] cnt = new double[kIn];
        for (int i = 0; i < kIn; i++) {
            ub[i] = ubIn[idx[i]];
            cnt[i] = cntIn[idx[i]];
        }
        if (ub[kIn - 1] != Double.POSITIVE_INFINITY) {
            return Double.NaN;
        }
        int m = 0;
        for (int i = 1; i < kIn; i++) {
            if (ub[i] == ub[m]) {
                cnt[m] += cnt[i];
            } else {
                m++;
                ub[m] = ub[i];
                cnt[m] = cnt[i];
            }
        }
        int k = m + 1;
        double count = cnt[k - 1];
        if (count == 0 || Double.isNaN(lower) || Double.isNaN(upper)) {
            return Double.NaN;
        }
        if (lower >= upper) {
            return 0;
        }
        double rank = 0;
        double lowerRank = 0;
        double upperRank = 0;
        boolean lowerSet = false;
        boolean upperSet = false;
        double lowerBound = ub[0] <= 0 ? Double.NEGATIVE_INFINITY : 0.0;
        for (int i = 0; i < k; i++) {
            if (i > 0) {
                lowerBound = ub[i - 1];
            }
            double upperBound = ub[i];
            double bc = cnt[i];
            if (!lowerSet && lowerBound >= lower) {
                lowerRank = rank;
                lowerSet = true;
            }
            if (!upperSet && lowerBound >= upper) {
                upperRank = rank;
                upperSet = true;
            }
            if (lowerSet && upperSet) {
                break;
            }
            if (!lowerSet && lowerBound < lower && upperBound > lower) {
                lowerRank = lowerBound == Double.NEGATIVE_INFINITY ? bc
                        : rank + (bc - rank) * (lower - lowerBound) / (upperBound - lowerBound);
                lowerSet = true;
            }
            if (!upperSet && lowerBound < upper && upperBound > upper) {
                upperRank = lowerBound == Double.NEGATIVE_INFINITY ? bc
                        : rank + (bc - rank) * (upper - lowerBound) / (upperBound - lowerBound);
                upperSet = true;
            }
            if (lowerSet && upperSet) {
                break;
            }
            rank = bc;
        }
        if (!lowerSet || lowerRank > count) {
            lowerRank = count;
        }
        if (!upperSet || upperRank > count) {
            upperRank = count;
        }
        return (upperRank - lowerRank) / count;
    }

    static double parseGoFloat(String s) {
        String t = s.trim();
        if (!t.equals(s) || t.isEmpty()) {
            throw new NumberFormatException(s);
        }
        String l = t.toLowerCase(java.util.Locale.ROOT);
        switch (l) {
            case "+inf", "inf", "+infinity", "infinity":
                return Double.POSITIVE_INFINITY;
            case "-inf", "-infinity":
                return Double.NEGATIVE_INFINITY;
            case "nan":
                return Double.NaN;
            default:
                break;
        }
        if (l.startsWith("0x") || l.startsWith("-0x") || l.startsWith("+0x")) {
            if (!l.contains("p")) {
                throw new NumberFormatException(s);
            }
        }
        if (l.endsWith("d") || l.endsWith("f")) {
            throw new NumberFormatException(s);
        }
        return Double.parseDouble(t);
    }
}
