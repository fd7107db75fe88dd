package io.sluice.promql;

import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.Labels;
import java.util.List;

/**
 * The answer to a query, shaped as the HTTP API writes it.
 * <ul>
 * <li>{@link ValueType#VECTOR}: {@code series}, each with exactly one point (timestamp = evaluation time);
 * <li>{@link ValueType#MATRIX}: {@code series}, each with its points in time order (a range query's result,
 *     or an instant query of a range selector);
 * <li>{@link ValueType#SCALAR}: {@code scalarTimeMs}/{@code scalarValue};
 * <li>{@link ValueType#STRING}: {@code scalarTimeMs}/{@code stringValue}.
 * </ul>
 * Series are in the order Prometheus returns them (the engine sorts where Prometheus does).
 * {@code warnings} and {@code infos} are Prometheus' annotations (e.g. "PromQL info: metric might not
 * be a counter, name does not end in _total/_sum/_count/_bucket: \"x\"", at the selector's position).
 */
public record QueryResult(ValueType type, List<Series> series, long scalarTimeMs, double scalarValue,
                          String stringValue, List<Annotation> warnings, List<Annotation> infos) {

    /** One result series: labels and {@code count} points in parallel arrays (no object per point). */
    public record Series(Labels labels, long[] timestamps, double[] values, int count) {
    }
}
