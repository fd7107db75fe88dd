package io.sluice.server.kafka;

import java.util.List;
import java.util.Random;

/**
 * PromQL queries generated from a small grammar over {@link PrometheusDifferentialTest}'s data: selectors
 * with every matcher type, range and subquery selectors, offset and {@code @}, every binary operator (with
 * {@code bool}, {@code on}/{@code ignoring}, {@code group_left}), every aggregation (with
 * {@code by}/{@code without} and parameters), the function families (rates, {@code *_over_time},
 * math, clamps, time, labels, histogram_quantile, sorts), nested to a small depth.
 */
final class QueryGrammar {
    final Random rnd;

    private static final List<String> VECTORS = List.of("d_gauge", "d_gauge{job=\"api\"}", "d_gauge{instance=~\"host-[01]\"}",
            "d_gauge{job!=\"db\"}", "d_churn", "d_churn{pod!~\"pod-[12]\"}", "d_latency_seconds_sum", "d_latency_seconds_count");
    private static final List<String> COUNTERS = List.of("d_requests_total", "d_requests_total{code=\"500\"}",
            "d_requests_total{job=\"db\",code=\"200\"}", "d_latency_seconds_count");
    private static final List<String> RANGES = List.of("1m", "5m", "10m", "30m");
    private static final List<String> ARITH = List.of("+", "-", "*", "/", "%", "^", "atan2");
    private static final List<String> COMPARISON = List.of("==", "!=", ">", "<", ">=", "<=");
    private static final List<String> SETS = List.of("and", "or", "unless");
    private static final List<String> AGGS = List.of("sum", "avg", "min", "max", "count", "stddev", "stdvar", "group");
    private static final List<String> OVER_TIME = List.of("avg_over_time", "min_over_time", "max_over_time", "sum_over_time",
            "count_over_time", "last_over_time", "stddev_over_time", "stdvar_over_time", "present_over_time", "changes", "resets",
            "deriv", "idelta", "delta", "mad_over_time");
    private static final List<String> RATES = List.of("rate", "increase", "irate");
    private static final List<String> MATH = List.of("abs", "ceil", "floor", "exp", "sqrt", "ln", "log2", "log10", "sgn",
            "round", "deg", "rad", "sin", "cos", "tanh", "asinh", "timestamp");
    private static final List<String> GROUP_LABELS = List.of("job", "instance", "code", "job, instance", "pod");

    QueryGrammar(Random rnd) {
        this.rnd = rnd;
    }

    private String pick(List<String> options) {
        return options.get(rnd.nextInt(options.size()));
    }

    String query() {
        return vector(2);
    }

    private String range() {
        return pick(RANGES);
    }

    private String modifiers() {
        return switch (rnd.nextInt(6)) {
            case 0 -> " offset " + (1 + rnd.nextInt(10)) + "m";
            case 1 -> " offset -2m";
            default -> "";
        };
    }

    /** An instant-vector expression, nested up to {@code depth} more levels. */
    String vector(int depth) {
        int choice = depth <= 0 ? rnd.nextInt(3) : rnd.nextInt(14);
        return switch (choice) {
            case 0 -> pick(VECTORS) + modifiers();
            case 1 -> pick(RATES) + "(" + pick(COUNTERS) + "[" + range() + "]" + modifiers() + ")";
            case 2 -> pick(OVER_TIME) + "(" + pick(VECTORS) + "[" + range() + "]" + modifiers() + ")";
            case 3 -> aggregate(depth);
            case 4 -> vector(depth - 1) + " " + pick(ARITH) + " " + scalarOrVector(depth);
            case 5 -> vector(depth - 1) + " " + pick(COMPARISON) + (rnd.nextBoolean() ? " bool " : " ") + rnd.nextInt(100);
            case 6 -> matched(depth);
            case 7 -> pick(MATH) + "(" + vector(depth - 1) + ")";
            case 8 -> switch (rnd.nextInt(4)) {
                case 0 -> "clamp(" + vector(depth - 1) + ", 10, 50)";
                case 1 -> "clamp_min(" + vector(depth - 1) + ", 20)";
                case 2 -> "round(" + vector(depth - 1) + ", 5)";
                default -> "clamp_max(" + vector(depth - 1) + ", 30)";
            };
            case 9 -> "histogram_quantile(" + pick(List.of("0.5", "0.9", "0.99", "0", "1")) + ", sum by (le"
                    + pick(List.of("", ", job", ", job, instance")) + ") (rate(d_latency_seconds_bucket[" + range() + "])))";
            case 10 -> pick(List.of("sort", "sort_desc")) + "(" + vector(depth - 1) + ")";
            case 11 -> pick(OVER_TIME) + "(" + vector(depth - 1) + "[" + range() + ":" + pick(List.of("1m", "30s", "2m")) + "])";
            case 12 -> pick(List.of("label_replace(%s, \"host\", \"$1\", \"instance\", \"host-(.*)\")",
                    "label_join(%s, \"both\", \"/\", \"job\", \"instance\")", "absent(%s)", "-%s", "%s @ end()",
                    "(%s)", "predict_linear(d_gauge[10m], 600)", "quantile_over_time(0.7, d_gauge[10m])",
                    "double_exponential_smoothing(d_gauge[10m], 0.5, 0.5)", "scalar(sum(%s)) * d_gauge")).formatted(vector(depth - 1));
            default -> pick(List.of("vector(1)", "time() - d_gauge", "day_of_week(vector(time()))", "minute()",
                    "hour(timestamp(d_gauge))", "vector(scalar(count(d_churn)))", "pi() * 2", "count(d_churn) by (job)"));
        };
    }

    private String scalarOrVector(int depth) {
        return rnd.nextInt(3) == 0 ? String.valueOf(rnd.nextInt(7) - 1) : vector(depth - 1);
    }

    private String aggregate(int depth) {
        String grouping = switch (rnd.nextInt(4)) {
            case 0 -> "";
            case 1 -> " without (" + pick(GROUP_LABELS) + ")";
            default -> " by (" + pick(GROUP_LABELS) + ")";
        };
        String inner = vector(depth - 1);
        return switch (rnd.nextInt(6)) {
            case 0 -> pick(List.of("topk", "bottomk")) + grouping + " (" + (1 + rnd.nextInt(3)) + ", " + inner + ")";
            case 1 -> "quantile" + grouping + " (" + pick(List.of("0.5", "0.9", "0", "1")) + ", " + inner + ")";
            case 2 -> "count_values" + grouping + " (\"value\", " + inner + ")";
            case 3 -> "limitk" + grouping + " (2, " + inner + ")";
            default -> pick(AGGS) + grouping + " (" + inner + ")";
        };
    }

    private String matched(int depth) {
        String op = rnd.nextInt(3) == 0 ? pick(SETS) : pick(ARITH);
        String matching = switch (rnd.nextInt(4)) {
            case 0 -> " on (job, instance) ";
            case 1 -> " ignoring (code) ";
            case 2 -> SETS.contains(op) ? " on (job) " : " on (job, instance) group_left ";
            default -> " ";
        };
        String left = rnd.nextBoolean() ? "d_requests_total" : "rate(d_requests_total[5m])";
        String right = switch (rnd.nextInt(3)) {
            case 0 -> "d_gauge";
            case 1 -> "sum by (job, instance) (" + vector(depth - 1) + ")";
            default -> "d_latency_seconds_count";
        };
        return left + " " + op + matching + right;
    }
}
