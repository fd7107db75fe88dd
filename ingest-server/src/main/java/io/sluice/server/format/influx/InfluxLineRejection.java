package io.sluice.server.format.influx;

/**
 * Why a line of a line-protocol record was skipped; the other lines of the record are kept.
 * {@link #label()} is the {@code reason} label of the lines-rejected metric, stable across releases.
 */
public enum InfluxLineRejection {
    /** Not line protocol: a missing part, an unknown value type, a stray character, an unterminated string. */
    SYNTAX("syntax"),
    /** A measurement, tag, field key or string field that is not well-formed UTF-8. */
    INVALID_UTF8("invalid_utf8"),
    /** A number beyond its type: an integer past int64/uint64, a float that rounds to infinity, a timestamp. */
    OUT_OF_RANGE("out_of_range"),
    /** Two tags with the same key, or a tag named {@code __name__} (which holds the metric name). */
    DUPLICATE_LABEL("duplicate_label"),
    /** The line has no timestamp and its Kafka record has none either (timestamp -1). */
    NO_TIMESTAMP("no_timestamp"),
    /** More than {@value InfluxLineParser#MAX_TAGS} tags: far beyond any head's label limit, and costly to check. */
    TOO_MANY_TAGS("too_many_tags");

    private final String label;

    InfluxLineRejection(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
