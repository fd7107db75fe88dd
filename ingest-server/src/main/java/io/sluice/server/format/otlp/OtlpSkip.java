package io.sluice.server.format.otlp;

/**
 * Why an OTLP metric was skipped while the rest of its record was stored. {@link #label()} is the
 * {@code reason} label of the skipped-metrics counter, stable across releases.
 */
public enum OtlpSkip {
    /** A sum or histogram with delta temporality: Prometheus series are cumulative, and summing deltas needs state. */
    DELTA_TEMPORALITY("delta_temporality"),
    /** A sum or histogram whose temporality is unspecified (0), which OTLP forbids. */
    UNSPECIFIED_TEMPORALITY("unspecified_temporality"),
    /** An exponential histogram: a native histogram, which Sluice does not store yet. */
    EXPONENTIAL_HISTOGRAM("exponential_histogram"),
    /** A metric without data (none of gauge, sum, histogram, exponential histogram, summary). */
    NO_DATA("no_data"),
    /** A name with nothing that can make a Prometheus metric name. */
    INVALID_NAME("invalid_name");

    private final String label;

    OtlpSkip(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
