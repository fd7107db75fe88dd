package io.sluice.server.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares Sluice's answer to a query with Prometheus': the same HTTP status and error type; the same
 * result type; the same series (as sets, or in order where Prometheus orders: a range query's matrix by
 * labels, an instant query's {@code sort*} and {@code topk}/{@code bottomk}); the same timestamps; values equal, both NaN, or within
 * Prometheus' test tolerance ({@link #EPSILON}); count_values' value labels to 10 significant digits.
 */
final class ResultComparison {
    /**
     * Prometheus' own test tolerance (promqltest's default epsilon, relative). 1e-9 holds for most queries;
     * aggregations over values that cancel (stdvar(time() - x), ~1.8e9 around a variance of ~5e3) differ
     * from Prometheus' by ~1e-9 relative (a different summation order).
     */
    static final double EPSILON = 1e-6;

    private ResultComparison() {
    }

    /** Null when the answers agree, else what differs. */
    @SuppressWarnings("unchecked")
    static String diff(String query, boolean instant, int ourStatus, String ourBody, int theirStatus, String theirBody) {
        Map<String, Object> ours = (Map<String, Object>) MiniJson.parse(ourBody);
        Map<String, Object> theirs = (Map<String, Object>) MiniJson.parse(theirBody);
        if (ourStatus != theirStatus || !ours.get("status").equals(theirs.get("status"))) {
            return "status " + ourStatus + " vs Prometheus' " + theirStatus + ": " + cut(ourBody) + " vs " + cut(theirBody);
        }
        if (!"success".equals(theirs.get("status"))) {
            return ours.get("errorType").equals(theirs.get("errorType")) ? null
                    : "errorType " + ours.get("errorType") + " vs " + theirs.get("errorType");
        }
        if (query.contains("@") && query.split(":\\d*[smh]?\\]", -1).length > 2) {
            // @ under two subqueries: a Prometheus server on TSDB blocks turns @ into an offset from the query's
            // time and can then look outside the range it selected (its test engine, on the head, and Sluice
            // answer): a known difference (promql/README.md), not compared.
            return null;
        }
        Map<String, Object> od = (Map<String, Object>) ours.get("data");
        Map<String, Object> td = (Map<String, Object>) theirs.get("data");
        if (!od.get("resultType").equals(td.get("resultType"))) {
            return "resultType " + od.get("resultType") + " vs " + td.get("resultType");
        }
        Object or = od.get("result");
        Object tr = td.get("result");
        if (td.get("resultType").equals("scalar") || td.get("resultType").equals("string")) {
            return points(List.of(or), List.of(tr));
        }
        Map<String, Object> os = bySeries((List<Object>) or);
        Map<String, Object> ts = bySeries((List<Object>) tr);
        if (query.contains("limitk")) {
            // limitk keeps the first k series of its input, in the input's order; in Prometheus that is the
            // iteration order of a Go map for most inputs (random), so only the count per step compares.
            Map<String, Integer> oc = new TreeMap<>();
            Map<String, Integer> tc = new TreeMap<>();
            allPoints(os).forEach(p -> oc.merge(p.split(" ")[0], 1, Integer::sum));
            allPoints(ts).forEach(p -> tc.merge(p.split(" ")[0], 1, Integer::sum));
            return oc.equals(tc) ? null : "limitk kept other numbers of series per step: " + cut(oc.toString()) + " vs " + cut(tc.toString());
        }
        boolean k = query.contains("topk") || query.contains("bottomk");
        if (k && samePoints(allPoints(os), allPoints(ts))) {
            // Ties: with equal values, which series topk/bottomk keeps is implementation order (Prometheus: its
            // heap's); the kept values at every step are the same.
            return null;
        }
        if (!os.keySet().equals(ts.keySet())) {
            List<String> extra = new ArrayList<>(os.keySet());
            extra.removeAll(ts.keySet());
            List<String> missing = new ArrayList<>(ts.keySet());
            missing.removeAll(os.keySet());
            return "series differ: only Sluice " + cut(extra.toString()) + ", only Prometheus " + cut(missing.toString());
        }
        String trimmed = query.strip();
        // A matrix comes sorted by labels; an instant vector in sort* or topk/bottomk order.
        boolean ordered = !instant || trimmed.startsWith("sort") || trimmed.startsWith("topk") || trimmed.startsWith("bottomk");
        if (ordered && !new ArrayList<>(os.keySet()).equals(new ArrayList<>(ts.keySet()))
                && !sameValues(valuesInOrder(os), valuesInOrder(ts))) { // equal values may come in either order
            return "order differs: " + cut(os.keySet().toString()) + " vs " + cut(ts.keySet().toString());
        }
        for (String key : ts.keySet()) {
            Map<String, Object> o = (Map<String, Object>) os.get(key);
            Map<String, Object> t = (Map<String, Object>) ts.get(key);
            List<Object> op = o.containsKey("value") ? List.of(o.get("value")) : (List<Object>) o.get("values");
            List<Object> tp = t.containsKey("value") ? List.of(t.get("value")) : (List<Object>) t.get("values");
            String d = points(op, tp);
            if (d != null) {
                return key + ": " + d;
            }
        }
        return null;
    }

    /** The same "timestamp value" points (sorted by timestamp, then value), values within the tolerance. */
    private static boolean samePoints(List<String> ours, List<String> theirs) {
        if (ours.size() != theirs.size()) {
            return false;
        }
        for (int i = 0; i < ours.size(); i++) {
            String[] o = ours.get(i).split(" ");
            String[] t = theirs.get(i).split(" ");
            if (!o[0].equals(t[0]) || !close(value(o[1]), value(t[1]))) {
                return false;
            }
        }
        return true;
    }

    /** Every (timestamp, value) of a result, sorted: the multiset of points regardless of series. */
    @SuppressWarnings("unchecked")
    private static List<String> allPoints(Map<String, Object> series) {
        List<String> out = new ArrayList<>();
        for (Object s : series.values()) {
            Map<String, Object> m = (Map<String, Object>) s;
            List<Object> points = m.containsKey("value") ? List.of(m.get("value")) : (List<Object>) m.get("values");
            for (Object p : points) {
                List<Object> point = (List<Object>) p;
                out.add(((MiniJson.Num) point.get(0)).text() + " " + point.get(1));
            }
        }
        out.sort(java.util.Comparator.<String, Double>comparing(p -> Double.parseDouble(p.split(" ")[0]))
                .thenComparing(p -> value(p.split(" ")[1])));
        return out;
    }

    /** The first value of each series, in the result's order. */
    @SuppressWarnings("unchecked")
    private static List<Object> valuesInOrder(Map<String, Object> series) {
        List<Object> out = new ArrayList<>();
        for (Object s : series.values()) {
            Map<String, Object> m = (Map<String, Object>) s;
            out.add(m.containsKey("value") ? ((List<Object>) m.get("value")).get(1) : m.get("values"));
        }
        return out;
    }

    /** The same values, each within the tolerance (an instant's value text, or a series' points as they print). */
    private static boolean sameValues(List<Object> ours, List<Object> theirs) {
        if (ours.size() != theirs.size()) {
            return false;
        }
        for (int i = 0; i < ours.size(); i++) {
            boolean same = ours.get(i) instanceof String o && theirs.get(i) instanceof String t ? close(value(o), value(t))
                    : ours.get(i).toString().equals(theirs.get(i).toString());
            if (!same) {
                return false;
            }
        }
        return true;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> bySeries(List<Object> result) {
        // count_values writes values as label text (under any label name): Java's and Go's trigonometric
        // functions may differ in the last bit (promql/README.md), so compare fractional numbers to 10 digits.
        // Labels that differ only beyond that (1.333333333333333 and 1.3333333333333335) are told apart by
        // their rank among each other, so which of them an answer lists first does not matter.
        List<String> exact = new ArrayList<>();
        List<String> rounded = new ArrayList<>();
        Map<String, List<String>> collisions = new TreeMap<>();
        for (Object s : result) {
            Map<String, Object> metric = new TreeMap<>((Map<String, Object>) ((Map<String, Object>) s).get("metric"));
            exact.add(metric.toString());
            for (Map.Entry<String, Object> e : metric.entrySet()) {
                if (e.getValue() instanceof String v && v.matches("[-+]?[0-9]*\\.[0-9]+(e[-+]?[0-9]+)?")) {
                    e.setValue(String.format("%.10g", Double.parseDouble(v)));
                }
            }
            rounded.add(metric.toString());
            collisions.computeIfAbsent(metric.toString(), k -> new ArrayList<>()).add(exact.getLast());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < result.size(); i++) {
            List<String> same = collisions.get(rounded.get(i));
            String key = rounded.get(i);
            if (same.size() > 1) {
                key += " #" + same.stream().sorted().toList().indexOf(exact.get(i));
            }
            out.put(key, result.get(i));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static String points(List<Object> ours, List<Object> theirs) {
        if (ours == null || theirs == null || ours.size() != theirs.size()) {
            return "points " + (ours == null ? 0 : ours.size()) + " vs " + (theirs == null ? 0 : theirs.size())
                    + ": " + cut(String.valueOf(ours)) + " vs " + cut(String.valueOf(theirs));
        }
        for (int i = 0; i < ours.size(); i++) {
            List<Object> o = (List<Object>) ours.get(i);
            List<Object> t = (List<Object>) theirs.get(i);
            double ot = Double.parseDouble(((MiniJson.Num) o.get(0)).text());
            double tt = Double.parseDouble(((MiniJson.Num) t.get(0)).text());
            if (ot != tt) {
                return "timestamp " + ot + " vs " + tt;
            }
            if (!close(value(o.get(1)), value(t.get(1)))) {
                return "at " + tt + ": " + o.get(1) + " vs " + t.get(1);
            }
        }
        return null;
    }

    private static double value(Object text) {
        String s = (String) text;
        return switch (s) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    static boolean close(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) && Double.isNaN(b);
        }
        if (a == b) {
            return true;
        }
        return Math.abs(a - b) <= EPSILON * Math.max(Math.abs(a), Math.abs(b));
    }

    private static String cut(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }
}
