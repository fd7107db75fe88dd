package io.sluice.core.labels;

/**
 * The outcome of building or validating a label set. Everything but {@link #OK} is bad input from
 * outside: the caller rejects the series (or its record), counts the reason and goes on; no
 * exception is thrown on this path. {@link LabelsBuilder#errorIndex()} says where.
 */
public enum LabelsStatus {
    OK,
    /** A label with a non-empty value has an empty name. */
    EMPTY_NAME,
    /** Two labels with non-empty values have the same name. */
    DUPLICATE_NAME,
    /** A name or value is not well-formed UTF-8. */
    INVALID_UTF8,
    /** More labels (with non-empty values) than {@link LabelLimits#maxLabels()}. */
    TOO_MANY_LABELS,
    /** A name longer than {@link LabelLimits#maxNameBytes()}. */
    NAME_TOO_LONG,
    /** A value longer than {@link LabelLimits#maxValueBytes()}. */
    VALUE_TOO_LONG,
    /** No {@code __name__} label while {@link LabelLimits#requireMetricName()} is set. */
    NO_METRIC_NAME,
    /** Canonical input only: names not in strictly ascending byte order (duplicates are {@link #DUPLICATE_NAME}). */
    NOT_SORTED,
    /** Canonical input only: a label with an empty value, which the encoding never writes. */
    EMPTY_VALUE,
    /** Canonical input only: a length prefix that is truncated, not minimal or runs past the end. */
    MALFORMED,
    /** Canonical input only: longer than {@link LabelLimits#maxCanonicalBytes()}, so some limit is broken. */
    TOO_LONG
}
