package io.sluice.server.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares Sluice's answer to a query with Prometheus': the same HTTP status and error type; the same
 * result type; the same series (as sets, or in order where Prometheus orders: {@code sort*} and, as an
 * instant query, {@code topk}/{@code bottomk}); the same timestamps; values equal, both NaN, or within
 * a relative 1e-9 (Prometheus' own test tolerance is 1e-6 relative).
 */
final class ResultComparison {
    static final double EPSILON = 1e-9;

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
        Map<String, Object> od = (Map<String, Object>) ours.get("data");
        Map<String, Object> td = (Map<String, Object>) theirs.get("data");
        if (!od.get("resultType").equals(td.get("resultType"))) {
            return "resultType " + od.get("resultType") + " vs " + td.get("resultType");
        }
        Object or = od.get("result");
        Object tr = td.get("result");
        if (!(tr instanceof List<?>)) {
            return points(List.of(or), List.of(tr));
        }
        Map<String, Object> os = bySeries((List<Object>) or);
        Map<String, Object> ts = bySeries((List<Object>) tr);
        if (!os.keySet().equals(ts.keySet())) {
            List<String> extra = new ArrayList<>(os.keySet());
            extra.removeAll(ts.keySet());
            List<String> missing = new ArrayList<>(ts.keySet());
            missing.removeAll(os.keySet());
            return "series differ: only Sluice " + cut(extra.toString()) + ", only Prometheus " + cut(missing.toString());
        }
        String trimmed = query.strip();
        boolean ordered = trimmed.startsWith("sort") || instant && (trimmed.startsWith("topk") || trimmed.startsWith("bottomk"));
        if (ordered && !new ArrayList<>(os.keySet()).equals(new ArrayList<>(ts.keySet()))) {
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

    @SuppressWarnings("unchecked")
    private static Map<String, Object> bySeries(List<Object> result) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Object s : result) {
            Map<String, Object> series = (Map<String, Object>) s;
            out.put(new TreeMap<>((Map<String, Object>) series.get("metric")).toString(), series);
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
