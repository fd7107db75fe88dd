package io.sluice.server.format.otlp;

/**
 * The OTLP metrics messages this package reads (opentelemetry-proto, {@code opentelemetry.proto.*.v1}),
 * as field numbers:
 *
 * <pre>
 * ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
 * ResourceMetrics  { Resource resource = 1;  repeated ScopeMetrics scope_metrics = 2;  string schema_url = 3; }
 * Resource         { repeated KeyValue attributes = 1;  uint32 dropped_attributes_count = 2; }
 * ScopeMetrics     { InstrumentationScope scope = 1;  repeated Metric metrics = 2;  string schema_url = 3; }
 * InstrumentationScope { string name = 1;  string version = 2;  repeated KeyValue attributes = 3; }
 * Metric           { string name = 1;  string description = 2;  string unit = 3;
 *                    oneof data { Gauge gauge = 5;  Sum sum = 7;  Histogram histogram = 9;
 *                                 ExponentialHistogram exponential_histogram = 10;  Summary summary = 11; }
 *                    repeated KeyValue metadata = 12; }
 * Gauge            { repeated NumberDataPoint data_points = 1; }
 * Sum              { repeated NumberDataPoint data_points = 1;  AggregationTemporality aggregation_temporality = 2;
 *                    bool is_monotonic = 3; }
 * Histogram        { repeated HistogramDataPoint data_points = 1;  AggregationTemporality aggregation_temporality = 2; }
 * Summary          { repeated SummaryDataPoint data_points = 1; }
 * NumberDataPoint  { repeated KeyValue attributes = 7;  fixed64 start_time_unix_nano = 2;  fixed64 time_unix_nano = 3;
 *                    oneof value { double as_double = 4;  sfixed64 as_int = 6; }  repeated Exemplar exemplars = 5;
 *                    uint32 flags = 8; }
 * HistogramDataPoint { repeated KeyValue attributes = 9;  fixed64 start_time_unix_nano = 2;  fixed64 time_unix_nano = 3;
 *                    fixed64 count = 4;  optional double sum = 5;  repeated fixed64 bucket_counts = 6;
 *                    repeated double explicit_bounds = 7;  repeated Exemplar exemplars = 8;  uint32 flags = 10;
 *                    optional double min = 11;  optional double max = 12; }
 * SummaryDataPoint { repeated KeyValue attributes = 7;  fixed64 start_time_unix_nano = 2;  fixed64 time_unix_nano = 3;
 *                    fixed64 count = 4;  double sum = 5;  repeated ValueAtQuantile quantile_values = 6;  uint32 flags = 8; }
 * ValueAtQuantile  { double quantile = 1;  double value = 2; }
 * KeyValue         { string key = 1;  AnyValue value = 2; }
 * AnyValue         { oneof value { string string_value = 1;  bool bool_value = 2;  int64 int_value = 3;
 *                    double double_value = 4;  ArrayValue array_value = 5;  KeyValueList kvlist_value = 6;
 *                    bytes bytes_value = 7; } }
 * ArrayValue       { repeated AnyValue values = 1; }          KeyValueList { repeated KeyValue values = 1; }
 * AggregationTemporality { UNSPECIFIED = 0; DELTA = 1; CUMULATIVE = 2; }
 * DataPointFlags   { NO_RECORDED_VALUE_MASK = 1; }
 * </pre>
 * Repeated scalars are packed as senders write them, and read unpacked too.
 */
final class OtlpSchema {
    static final int REQUEST_RESOURCE_METRICS = 1;

    static final int RESOURCE_METRICS_RESOURCE = 1;
    static final int RESOURCE_METRICS_SCOPE_METRICS = 2;
    static final int RESOURCE_ATTRIBUTES = 1;

    static final int SCOPE_METRICS_SCOPE = 1;
    static final int SCOPE_METRICS_METRICS = 2;
    static final int SCOPE_METRICS_SCHEMA_URL = 3;
    static final int SCOPE_NAME = 1;
    static final int SCOPE_VERSION = 2;
    static final int SCOPE_ATTRIBUTES = 3;

    static final int METRIC_NAME = 1;
    static final int METRIC_UNIT = 3;
    static final int METRIC_GAUGE = 5;
    static final int METRIC_SUM = 7;
    static final int METRIC_HISTOGRAM = 9;
    static final int METRIC_EXPONENTIAL_HISTOGRAM = 10;
    static final int METRIC_SUMMARY = 11;

    static final int DATA_POINTS = 1;
    static final int AGGREGATION_TEMPORALITY = 2;
    static final int SUM_IS_MONOTONIC = 3;
    static final int TEMPORALITY_DELTA = 1;
    static final int TEMPORALITY_CUMULATIVE = 2;

    static final int POINT_TIME = 3;
    static final int NUMBER_ATTRIBUTES = 7;
    static final int NUMBER_AS_DOUBLE = 4;
    static final int NUMBER_EXEMPLARS = 5;
    static final int NUMBER_AS_INT = 6;
    static final int NUMBER_FLAGS = 8;

    static final int HISTOGRAM_COUNT = 4;
    static final int HISTOGRAM_SUM = 5;
    static final int HISTOGRAM_BUCKET_COUNTS = 6;
    static final int HISTOGRAM_EXPLICIT_BOUNDS = 7;
    static final int HISTOGRAM_EXEMPLARS = 8;
    static final int HISTOGRAM_ATTRIBUTES = 9;
    static final int HISTOGRAM_FLAGS = 10;

    static final int SUMMARY_COUNT = 4;
    static final int SUMMARY_SUM = 5;
    static final int SUMMARY_QUANTILE_VALUES = 6;
    static final int SUMMARY_ATTRIBUTES = 7;
    static final int SUMMARY_FLAGS = 8;
    static final int QUANTILE = 1;
    static final int QUANTILE_VALUE = 2;

    static final int KEY_VALUE_KEY = 1;
    static final int KEY_VALUE_VALUE = 2;
    static final int ANY_STRING = 1;
    static final int ANY_BOOL = 2;
    static final int ANY_INT = 3;
    static final int ANY_DOUBLE = 4;
    static final int ANY_ARRAY = 5;
    static final int ANY_KVLIST = 6;
    static final int ANY_BYTES = 7;
    static final int LIST_VALUES = 1;

    static final int FLAG_NO_RECORDED_VALUE = 1;

    private OtlpSchema() {
    }
}
