package io.sluice.server.kafka;

import java.util.List;
import java.util.Random;

/**
 * PromQL queries generated from a grammar over {@link PrometheusDifferentialTest}'s data: selectors with
 * every matcher type (also on series that do not exist), range and subquery selectors, {@code offset}
 * (also negative) and {@code @} (a time in the data, {@code start()}, {@code end()}) on selectors and
 * subqueries; every binary operator with {@code bool}, {@code on}/{@code ignoring},
 * {@code group_left}/{@code group_right} with extra labels, between vectors and scalars; every
 * aggregation ({@code by}/{@code without} before or after, parameters that are expressions, out of
 * range or NaN) nested in each other; every float function family (rates, {@code *_over_time} with
 * their parameters, math and trigonometry, clamps, dates, {@code label_replace}/{@code label_join},
 * {@code sort*}, {@code histogram_quantile}/{@code histogram_fraction} over classic buckets,
 * {@code absent*}, {@code timestamp}, {@code scalar}/{@code vector}), nested to a small depth.
 */
final class QueryGrammar {
    final Random rnd;
    /** Seconds of a time inside the data, for {@code @}. */
    private final long dataSeconds;

    // target_info (for info()) stays out of these: with it, `{job="api"}` selects more than 12 series, where
    // sort_by_label's order of series without the label is Go's pdqsort's, which Sluice does not reproduce.
    private static final List<String> VECTORS = List.of("d_gauge", "d_gauge{job=\"api\"}", "d_gauge{instance=~\"host-[01]\"}",
            "d_gauge{job!=\"db\"}", "d_churn", "d_churn{pod!~\"pod-[12]\"}", "d_latency_seconds_sum", "d_latency_seconds_count",
            "d_gauge{job=\"db\",instance=\"host-1\"}", "{__name__=~\"d_(gauge|churn)\"}", "d_requests_total{code=~\"5..\"}",
            "d_latency_seconds_bucket{le=\"0.5\"}", "d_missing", "d_gauge{job=\"nope\"}", "{job=\"api\",__name__!~\".*bucket|.*total|target_info\"}");
    private static final List<String> COUNTERS = List.of("d_requests_total", "d_requests_total{code=\"500\"}",
            "d_requests_total{job=\"db\",code=\"200\"}", "d_latency_seconds_count", "d_requests_total{instance=\"host-0\"}",
            "d_latency_seconds_bucket{job=\"api\"}");
    private static final List<String> RANGES = List.of("1m", "5m", "10m", "30m", "90s", "1h");
    private static final List<String> ARITH = List.of("+", "-", "*", "/", "%", "^", "atan2");
    private static final List<String> COMPARISON = List.of("==", "!=", ">", "<", ">=", "<=");
    private static final List<String> SETS = List.of("and", "or", "unless");
    private static final List<String> AGGS = List.of("sum", "avg", "min", "max", "count", "stddev", "stdvar", "group");
    private static final List<String> OVER_TIME = List.of("avg_over_time", "min_over_time", "max_over_time", "sum_over_time",
            "count_over_time", "last_over_time", "stddev_over_time", "stdvar_over_time", "present_over_time", "changes", "resets",
            "deriv", "idelta", "delta", "mad_over_time", "absent_over_time", "first_over_time", "ts_of_max_over_time",
            "ts_of_min_over_time", "ts_of_last_over_time", "ts_of_first_over_time");
    private static final List<String> RATES = List.of("rate", "increase", "irate");
    private static final List<String> MATH = List.of("abs", "ceil", "floor", "exp", "sqrt", "ln", "log2", "log10", "sgn",
            "round", "deg", "rad", "sin", "cos", "tan", "tanh", "asinh", "atan", "sinh", "cosh", "acos", "asin", "atanh", "acosh",
            "timestamp", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute", "month", "year");
    private static final List<String> GROUP_LABELS = List.of("job", "instance", "code", "job, instance", "pod", "", "le", "__name__",
            "nope");

    QueryGrammar(Random rnd, long dataSeconds) {
        this.rnd = rnd;
        this.dataSeconds = dataSeconds;
    }

    private String pick(List<String> options) {
        return options.get(rnd.nextInt(options.size()));
    }

    String query() {
        return rnd.nextInt(12) == 0 ? scalar(2) : vector(2);
    }

    private String range() {
        return pick(RANGES);
    }

    private String at() {
        return switch (rnd.nextInt(4)) {
            case 0 -> " @ start()";
            case 1 -> " @ end()";
            default -> " @ " + (dataSeconds + rnd.nextInt(3600)) + (rnd.nextBoolean() ? "" : ".5");
        };
    }

    private String modifiers() {
        return switch (rnd.nextInt(8)) {
            case 0 -> " offset " + (1 + rnd.nextInt(10)) + "m";
            case 1 -> " offset -2m";
            case 2 -> at();
            case 3 -> at() + " offset " + (1 + rnd.nextInt(30)) + "m";
            default -> "";
        };
    }

    /** A scalar expression. */
    String scalar(int depth) {
        return switch (depth <= 0 ? rnd.nextInt(2) : rnd.nextInt(7)) {
            case 0 -> String.valueOf(rnd.nextInt(7) - 1);
            case 1 -> pick(List.of("time()", "pi()", "0.5", "NaN", "Inf", "-Inf", "1e3", "0x10", "2.5"));
            case 2 -> "scalar(" + vector(depth - 1) + ")";
            case 3 -> scalar(depth - 1) + " " + pick(ARITH) + " " + scalar(depth - 1);
            case 4 -> scalar(depth - 1) + " " + pick(COMPARISON) + " bool " + scalar(depth - 1);
            case 5 -> "-(" + scalar(depth - 1) + ")";
            default -> "scalar(count(" + pick(VECTORS) + "))";
        };
    }

    /** An instant-vector expression, nested up to {@code depth} more levels. */
    String vector(int depth) {
        int choice = depth <= 0 ? rnd.nextInt(3) : rnd.nextInt(20);
        return switch (choice) {
            case 0 -> pick(VECTORS) + modifiers();
            case 1 -> pick(RATES) + "(" + pick(COUNTERS) + "[" + range() + "]" + modifiers() + ")";
            case 2 -> pick(OVER_TIME) + "(" + pick(VECTORS) + "[" + range() + "]" + modifiers() + ")";
            case 3, 4 -> aggregate(depth);
            case 5 -> vector(depth - 1) + " " + pick(ARITH) + " " + scalarOrVector(depth);
            case 6 -> switch (rnd.nextInt(3)) {
                case 0 -> vector(depth - 1) + " " + pick(COMPARISON) + (rnd.nextBoolean() ? " bool " : " ") + rnd.nextInt(100);
                case 1 -> scalar(depth - 1) + " " + pick(COMPARISON) + (rnd.nextBoolean() ? " bool " : " ") + vector(depth - 1);
                default -> scalar(depth - 1) + " " + pick(ARITH) + " " + vector(depth - 1);
            };
            case 7, 8 -> matched(depth);
            case 9 -> pick(MATH) + "(" + vector(depth - 1) + ")";
            case 10 -> switch (rnd.nextInt(6)) {
                case 0 -> "clamp(" + vector(depth - 1) + ", " + pick(List.of("10, 50", "50, 10", "-Inf, 20", "NaN, 5")) + ")";
                case 1 -> "clamp_min(" + vector(depth - 1) + ", " + pick(List.of("20", "scalar(d_gauge{instance=\"host-2\",job=\"db\"})")) + ")";
                case 2 -> "round(" + vector(depth - 1) + ", " + pick(List.of("5", "0.1", "-3", "0.3")) + ")";
                case 3 -> "timestamp(" + vector(depth - 1) + ")";
                case 4 -> pick(List.of("hour", "minute", "month", "day_of_week")) + "()";
                default -> "clamp_max(" + vector(depth - 1) + ", 30)";
            };
            case 11 -> histogram(depth);
            case 12 -> sorted(depth);
            case 13 -> pick(OVER_TIME) + "(" + vector(depth - 1) + "[" + range() + ":" + pick(List.of("1m", "30s", "2m", ""))
                    + "]" + (rnd.nextBoolean() ? modifiers() : "") + ")";
            case 14 -> labels(depth);
            case 15 -> switch (rnd.nextInt(7)) {
                case 0 -> "quantile_over_time(" + pick(List.of("0.7", "0", "1", "-1", "2", "NaN")) + ", " + pick(VECTORS) + "[10m]" + modifiers() + ")";
                case 1 -> "predict_linear(" + pick(VECTORS) + "[" + range() + "]" + modifiers() + ", " + pick(List.of("600", "-60", "0")) + ")";
                case 2 -> "double_exponential_smoothing(" + pick(VECTORS) + "[10m], " + pick(List.of("0.5, 0.5", "0.1, 0.9", "1, 0.3")) + ")";
                case 3 -> "absent(" + vector(depth - 1) + ")";
                case 4 -> "absent_over_time(" + pick(VECTORS) + "[" + range() + "]" + modifiers() + ")";
                case 5 -> "deriv(" + vector(depth - 1) + "[" + range() + ":1m])";
                default -> pick(RATES) + "(" + pick(COUNTERS) + "[" + range() + ":" + pick(List.of("1m", "15s", "")) + "]" + modifiers() + ")";
            };
            case 16 -> pick(List.of("-%s", "(%s)", "%s @ end()", "+%s", "-(%s) ^ 2", "vector(scalar(%s))", "%s offset 5m @ start()"))
                    .formatted(depth > 1 ? vector(depth - 1) : pick(VECTORS));
            case 17 -> pick(OVER_TIME) + "((" + vector(depth - 1) + ")[" + pick(List.of("20m", "5m")) + ":" + pick(List.of("1m", "2m"))
                    + "]" + modifiers() + ")";
            default -> pick(List.of("vector(1)", "time() - d_gauge", "day_of_week(vector(time()))", "minute()",
                    "hour(timestamp(d_gauge))", "vector(scalar(count(d_churn)))", "vector(pi() * 2)", "count(d_churn) by (job)",
                    "vector(time()) % 3600", "scalar(d_churn) * d_gauge", "d_gauge - d_gauge offset 10m", "d_churn == bool d_churn"));
        };
    }

    private String scalarOrVector(int depth) {
        return rnd.nextInt(3) == 0 ? (rnd.nextBoolean() ? String.valueOf(rnd.nextInt(7) - 1) : scalar(depth - 1)) : vector(depth - 1);
    }

    private String grouping() {
        return switch (rnd.nextInt(5)) {
            case 0 -> "";
            case 1 -> " without (" + pick(GROUP_LABELS) + ")";
            default -> " by (" + pick(GROUP_LABELS) + ")";
        };
    }

    private String aggregate(int depth) {
        String grouping = grouping();
        String inner = vector(depth - 1);
        boolean after = rnd.nextInt(4) == 0 && !grouping.isEmpty();
        String head;
        String args;
        switch (rnd.nextInt(9)) {
            case 0 -> {
                head = pick(List.of("topk", "bottomk"));
                args = pick(List.of("1", "2", "3", "0", "-1", "scalar(count(d_churn))", "1.9")) + ", " + inner;
            }
            case 1 -> {
                head = "quantile";
                args = pick(List.of("0.5", "0.9", "0", "1", "-0.5", "1.5", "NaN", "scalar(d_churn) / 10")) + ", " + inner;
            }
            case 2 -> {
                head = "count_values";
                args = pick(List.of("\"value\"", "\"job\"", "\"le\"", "\"__name__\"")) + ", " + inner;
            }
            case 3 -> {
                head = "limitk";
                args = pick(List.of("1", "2", "5")) + ", " + inner;
            }
            case 4 -> {
                head = "limit_ratio";
                args = pick(List.of("0.5", "-0.5", "0.1", "1", "-1", "0.8")) + ", " + inner;
            }
            default -> {
                head = pick(AGGS);
                args = inner;
            }
        }
        return after ? head + " (" + args + ")" + grouping : head + grouping + " (" + args + ")";
    }

    private String histogram(int depth) {
        String by = pick(List.of("le", "le, job", "le, job, instance", "le, instance"));
        String buckets = switch (rnd.nextInt(4)) {
            case 0 -> "d_latency_seconds_bucket";
            case 1 -> "increase(d_latency_seconds_bucket[" + range() + "]" + modifiers() + ")";
            default -> "rate(d_latency_seconds_bucket[" + range() + "]" + modifiers() + ")";
        };
        String summed = rnd.nextInt(4) == 0 ? buckets : "sum by (" + by + ") (" + buckets + ")";
        if (rnd.nextInt(3) == 0) {
            return "histogram_fraction(" + pick(List.of("0, 0.5", "0.1, 1", "-Inf, 0.3", "0.05, +Inf")) + ", " + summed + ")";
        }
        String q = depth > 1 && rnd.nextInt(4) == 0 ? "scalar(d_churn) / 10"
                : pick(List.of("0.5", "0.9", "0.99", "0", "1", "-1", "2", "NaN", "0.25"));
        return "histogram_quantile(" + q + ", " + summed + ")";
    }

    private String sorted(int depth) {
        return switch (rnd.nextInt(4)) {
            case 0 -> "sort_by_label(" + vector(depth - 1) + ", " + pick(List.of("\"instance\"", "\"job\", \"instance\"", "\"code\"",
                    "\"pod\", \"nope\"", "\"__name__\"")) + ")";
            // Not by le: Prometheus' natural order finds "0.5" and "0.05" equal one way and unequal the other
            // (its answer then depends on its sort algorithm's internals; promql/README.md).
            case 1 -> "sort_by_label_desc(" + vector(depth - 1) + ", " + pick(List.of("\"instance\"", "\"job\", \"code\"", "\"pod\"")) + ")";
            default -> pick(List.of("sort", "sort_desc")) + "(" + vector(depth - 1) + ")";
        };
    }

    private String labels(int depth) {
        String inner = vector(depth - 1);
        return switch (rnd.nextInt(7)) {
            case 0 -> "label_replace(" + inner + ", \"host\", \"$1\", \"instance\", \"host-(.*)\")";
            case 1 -> "label_replace(" + inner + ", \"job\", \"x-$1-${2}\", \"instance\", \"(h)ost-([0-9])\")";
            case 2 -> "label_replace(" + inner + ", \"instance\", \"\", \"job\", \"api\")";
            case 3 -> "label_replace(" + inner + ", \"__name__\", \"renamed\", \"job\", \".*\")";
            case 4 -> "label_join(" + inner + ", \"both\", \"/\", \"job\", \"instance\")";
            case 5 -> "label_join(" + inner + ", \"job\", \"\", \"nope\")";
            default -> "label_join(" + inner + ", \"__name__\", \"-\", \"job\", \"code\")";
        };
    }

    private String matched(int depth) {
        String op = switch (rnd.nextInt(4)) {
            case 0 -> pick(SETS);
            case 1 -> pick(COMPARISON) + (rnd.nextBoolean() ? " bool" : "");
            default -> pick(ARITH);
        };
        boolean set = SETS.contains(op);
        String matching = switch (rnd.nextInt(8)) {
            case 0 -> " on (job, instance) ";
            case 1 -> " ignoring (code) ";
            case 2 -> set ? " on (job) " : " on (job, instance) group_left ";
            case 3 -> set ? " on () " : " on (job, instance) group_left (code) ";
            case 4 -> set ? " ignoring (instance) " : " ignoring (code) group_left (le) ";
            case 5 -> set ? " on (pod) " : " on (job) group_right ";
            case 6 -> set ? " on (__name__) " : " on (job, instance) group_right (code) ";
            default -> " ";
        };
        String left = switch (rnd.nextInt(4)) {
            case 0 -> "d_requests_total";
            case 1 -> "rate(d_requests_total[5m])";
            case 2 -> "d_latency_seconds_bucket";
            default -> vector(depth - 1);
        };
        String right = switch (rnd.nextInt(5)) {
            case 0 -> "d_gauge";
            case 1 -> "sum by (job, instance) (" + vector(depth - 1) + ")";
            case 2 -> "max by (job) (" + vector(depth - 1) + ")";
            case 3 -> vector(depth - 1);
            default -> "d_latency_seconds_count";
        };
        return left + " " + op + matching + right;
    }
}
