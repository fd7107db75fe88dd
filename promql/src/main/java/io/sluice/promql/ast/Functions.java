package io.sluice.promql.ast;

import static io.sluice.promql.ast.ValueType.MATRIX;
import static io.sluice.promql.ast.ValueType.SCALAR;
import static io.sluice.promql.ast.ValueType.STRING;
import static io.sluice.promql.ast.ValueType.VECTOR;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The signature of every PromQL function Prometheus 3.x knows: argument types, how many trailing
 * arguments may be left out or repeated, the return type, and whether Prometheus calls it experimental
 * (Sluice enables the experimental ones, as Prometheus' own test suite does). The parser checks calls
 * against this table, so the evaluator may trust arity and argument types.
 */
public final class Functions {
    /**
     * One function. {@code variadic}: 0 = exactly {@code argTypes.size()} arguments; n &gt; 0 = the last
     * argument type may be left out or repeated up to n times in all; -1 = the last may be left out or
     * repeated without bound.
     */
    public record Function(String name, List<ValueType> argTypes, int variadic, ValueType returnType,
                           boolean experimental) {
        /** Fewest arguments a call may pass. */
        public int minArgs() {
            return variadic == 0 ? argTypes.size() : argTypes.size() - 1;
        }

        /** Most arguments a call may pass; {@link Integer#MAX_VALUE} when unbounded. */
        public int maxArgs() {
            if (variadic == 0) {
                return argTypes.size();
            }
            return variadic < 0 ? Integer.MAX_VALUE : argTypes.size() - 1 + variadic;
        }

        /** The expected type of argument {@code i} (the last type repeats for variadic functions). */
        public ValueType argType(int i) {
            return argTypes.get(Math.min(i, argTypes.size() - 1));
        }
    }

    private static final Map<String, Function> FUNCTIONS;

    static {
        Map<String, Function> m = new TreeMap<>();
        // Math on instant vectors.
        for (String name : List.of("abs", "ceil", "exp", "floor", "ln", "log2", "log10", "sgn", "sqrt", "deg", "rad",
                "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan", "tanh")) {
            def(m, name, 0, VECTOR, false, VECTOR);
        }
        def(m, "round", 1, VECTOR, false, VECTOR, SCALAR);
        def(m, "clamp", 0, VECTOR, false, VECTOR, SCALAR, SCALAR);
        def(m, "clamp_max", 0, VECTOR, false, VECTOR, SCALAR);
        def(m, "clamp_min", 0, VECTOR, false, VECTOR, SCALAR);
        def(m, "pi", 0, SCALAR, false);
        // Range-vector functions.
        for (String name : List.of("rate", "irate", "increase", "delta", "idelta", "deriv", "changes", "resets",
                "avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time",
                "stddev_over_time", "stdvar_over_time", "last_over_time", "first_over_time", "present_over_time",
                "absent_over_time")) {
            def(m, name, 0, VECTOR, false, MATRIX);
        }
        for (String name : List.of("mad_over_time", "ts_of_first_over_time", "ts_of_last_over_time",
                "ts_of_max_over_time", "ts_of_min_over_time")) {
            def(m, name, 0, VECTOR, true, MATRIX);
        }
        def(m, "quantile_over_time", 0, VECTOR, false, SCALAR, MATRIX);
        def(m, "predict_linear", 0, VECTOR, false, MATRIX, SCALAR);
        def(m, "double_exponential_smoothing", 0, VECTOR, true, MATRIX, SCALAR, SCALAR);
        // Date functions: the vector argument defaults to vector(time()).
        for (String name : List.of("day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute",
                "month", "year")) {
            def(m, name, 1, VECTOR, false, VECTOR);
        }
        // Histograms.
        def(m, "histogram_quantile", 0, VECTOR, false, SCALAR, VECTOR);
        def(m, "histogram_quantiles", 9, VECTOR, true, VECTOR, STRING, SCALAR, SCALAR);
        def(m, "histogram_fraction", 0, VECTOR, false, SCALAR, SCALAR, VECTOR);
        for (String name : List.of("histogram_avg", "histogram_count", "histogram_sum", "histogram_stddev",
                "histogram_stdvar")) {
            def(m, name, 0, VECTOR, false, VECTOR);
        }
        // Labels, sorting, types.
        def(m, "label_replace", 0, VECTOR, false, VECTOR, STRING, STRING, STRING, STRING);
        def(m, "label_join", -1, VECTOR, false, VECTOR, STRING, STRING, STRING);
        def(m, "sort", 0, VECTOR, false, VECTOR);
        def(m, "sort_desc", 0, VECTOR, false, VECTOR);
        def(m, "sort_by_label", -1, VECTOR, true, VECTOR, STRING);
        def(m, "sort_by_label_desc", -1, VECTOR, true, VECTOR, STRING);
        def(m, "absent", 0, VECTOR, false, VECTOR);
        def(m, "scalar", 0, SCALAR, false, VECTOR);
        def(m, "vector", 0, VECTOR, false, SCALAR);
        def(m, "time", 0, SCALAR, false);
        def(m, "timestamp", 0, VECTOR, false, VECTOR);
        def(m, "info", 1, VECTOR, true, VECTOR, VECTOR);
        def(m, "start_timestamp", 0, VECTOR, true, VECTOR);
        // Evaluation-window functions (experimental in Prometheus).
        def(m, "start", 0, SCALAR, true);
        def(m, "end", 0, SCALAR, true);
        def(m, "step", 0, SCALAR, true);
        def(m, "range", 0, SCALAR, true);
        def(m, "max_of", 0, SCALAR, true, SCALAR, SCALAR);
        def(m, "min_of", 0, SCALAR, true, SCALAR, SCALAR);
        FUNCTIONS = Collections.unmodifiableMap(m);
    }

    private Functions() {
    }

    private static void def(Map<String, Function> m, String name, int variadic, ValueType returnType, boolean experimental,
                            ValueType... args) {
        m.put(name, new Function(name, List.of(args), variadic, returnType, experimental));
    }

    /** The function of that name, or null. */
    public static Function get(String name) {
        return FUNCTIONS.get(name);
    }

    /** Every function, by name. */
    public static Map<String, Function> all() {
        return FUNCTIONS;
    }
}
