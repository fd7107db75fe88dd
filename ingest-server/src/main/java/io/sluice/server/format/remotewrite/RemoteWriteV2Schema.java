package io.sluice.server.format.remotewrite;

/**
 * The messages of Prometheus remote-write 2.0 ({@code io.prometheus.write.v2}) this package reads, as
 * field numbers; the Sample message and its numbers are the same as in 1.0 ({@link RemoteWriteSchema}).
 *
 * <pre>
 * Request    { reserved 1 to 3;  repeated string symbols = 4;  repeated TimeSeries timeseries = 5; }
 * TimeSeries { repeated uint32 labels_refs = 1;  repeated Sample samples = 2;  repeated Histogram histograms = 3;
 *              repeated Exemplar exemplars = 4;  Metadata metadata = 5;  int64 created_timestamp = 6; }
 * </pre>
 *
 * Strings live once in {@code symbols} (whose first entry is ""); {@code labels_refs} holds name/value
 * pairs of indexes into it, packed (one length-delimited field of varints, as senders write it) or not.
 */
final class RemoteWriteV2Schema {
    /** Fields 1–3 are reserved in 2.0 so that a 1.0 WriteRequest (timeseries = 1, metadata = 3) is recognized. */
    static final int FIRST_V1_FIELD = 1;
    static final int LAST_V1_FIELD = 3;
    static final int REQUEST_SYMBOLS = 4;
    static final int REQUEST_TIMESERIES = 5;

    static final int TIMESERIES_LABELS_REFS = 1;
    static final int TIMESERIES_SAMPLES = 2;
    static final int TIMESERIES_HISTOGRAMS = 3;
    static final int TIMESERIES_EXEMPLARS = 4;
    static final int TIMESERIES_METADATA = 5;

    private RemoteWriteV2Schema() {
    }
}
