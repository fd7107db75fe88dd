package io.sluice.server.format.remotewrite;

/**
 * The messages of Prometheus remote-write 1.0 this package reads and writes, as field numbers and
 * the tags they make on the wire ({@code tag = fieldNumber << 3 | wireType}).
 *
 * <pre>
 * WriteRequest   { repeated TimeSeries timeseries = 1;  reserved 2;  repeated MetricMetadata metadata = 3; }
 * TimeSeries     { repeated Label labels = 1;  repeated Sample samples = 2;
 *                  repeated Exemplar exemplars = 3;  repeated Histogram histograms = 4; }
 * Label          { string name = 1;  string value = 2; }
 * Sample         { double value = 1;  int64 timestamp = 2; }
 * </pre>
 *
 * A Label on the wire, e.g. {@code job="node"}:
 * <pre>
 *  0A 0B | 0A 03 'j' 'o' 'b' | 12 04 'n' 'o' 'd' 'e'
 *  tag   | name: tag len     | value: tag len
 *  len
 * </pre>
 * A Sample: {@code 12 len | 09 <8 bytes float64 LE> | 10 <varint timestamp>} (inside its TimeSeries,
 * whose own tag is {@code 0A}). Metadata, exemplars and native histograms are skipped by length.
 */
final class RemoteWriteSchema {
    static final int WRITE_REQUEST_TIMESERIES = 1;
    static final int WRITE_REQUEST_METADATA = 3;
    /**
     * remote-write 2.0's {@code io.prometheus.write.v2.Request} keeps fields 1–3 reserved and puts
     * {@code repeated string symbols = 4; repeated TimeSeries timeseries = 5}. A 1.0 parser would skip
     * both as unknown and store nothing, so these fields at the top level reject the record instead.
     */
    static final int V2_REQUEST_SYMBOLS = 4;
    static final int V2_REQUEST_TIMESERIES = 5;

    static final int TIMESERIES_LABELS = 1;
    static final int TIMESERIES_SAMPLES = 2;
    static final int TIMESERIES_EXEMPLARS = 3;
    static final int TIMESERIES_HISTOGRAMS = 4;

    static final int LABEL_NAME = 1;
    static final int LABEL_VALUE = 2;

    static final int SAMPLE_VALUE = 1;
    static final int SAMPLE_TIMESTAMP = 2;

    private RemoteWriteSchema() {
    }
}
