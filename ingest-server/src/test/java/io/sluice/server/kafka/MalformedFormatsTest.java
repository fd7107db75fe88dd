package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.micrometer.core.instrument.Counter;
import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.otlp.pb.OtlpMetrics;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed records of every input format, between good ones, through a real broker and head: each is
 * rejected with a counted reason ({@code sluice_records_rejected_total{reason}}; a 0-byte record is {@code empty}
 * in every format) and the partition moves
 * on; a protobuf record whose later series is bad stores nothing of its earlier good one (all or nothing
 * per record); what decoders skip inside accepted records (influx bad lines and string fields, OTLP delta
 * and exponential-histogram metrics) is counted in {@code sluice_decode_skipped_total{format,reason}}.
 */
class MalformedFormatsTest {
    private static final long T = FormatCases.T;
    /** Four ASCII bytes that a test replaces by four bytes that are not UTF-8, keeping every length. */
    private static final String MARK = "MARK";
    private static final byte[] NOT_UTF8 = {(byte) 0xC3, 0x28, (byte) 0xFF, 'x'};
    @TempDir
    Path dir;

    @Test
    void malformedRecordsAreRejectedWithACountedReasonAndNothingPartiallyStored() {
        try (TestTopics topics = new TestTopics()) {
            Map<String, PayloadFormat> formats = new HashMap<>();
            Map<PayloadFormat, String> topicOf = new HashMap<>();
            for (PayloadFormat format : List.of(PayloadFormat.PROMETHEUS_REMOTE_WRITE, PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2,
                    PayloadFormat.INFLUX, PayloadFormat.OTLP, PayloadFormat.JSON)) {
                String topic = topics.create("bad-" + format.configName(), 1);
                formats.put(topic, format);
                topicOf.put(format, topic);
            }
            Map<String, Double> rejected = new TreeMap<>();
            List<String> good = new ArrayList<>();
            for (PayloadFormat format : formats.values()) {
                String topic = topicOf.get(format);
                good.addAll(sendGood(topics, topic, format, "before"));
                List<Bad> bads = new ArrayList<>(bad(format));
                bads.add(new Bad(new byte[0], null, "empty")); // influx and otlp would read 0 bytes as a request of nothing
                for (Bad bad : bads) {
                    topics.sendAndWait(topic, 0, bad.value, bad.contentType);
                    rejected.merge(bad.reason, 1.0, Double::sum);
                }
                good.addAll(sendGood(topics, topic, format, "after"));
            }
            // Accepted records with content skipped inside.
            topics.sendAndWait(topicOf.get(PayloadFormat.INFLUX), 0, utf8("e2e_line,fmt=skips v=1 " + T * 1_000_000 + "\n"
                    + "broken line without fields\n"
                    + "e2e_str,fmt=skips s=\"text\",v=2 " + T * 1_000_000 + "\n"));
            good.add(line("e2e_line_v", "skips", T, 1));
            good.add(line("e2e_str_v", "skips", T, 2));
            topics.sendAndWait(topicOf.get(PayloadFormat.INFLUX), 0, otlpWithSkips()); // OTLP bytes on an influx topic
            topics.sendAndWait(topicOf.get(PayloadFormat.OTLP), 0, otlpWithSkips());
            good.add(line("e2e_kept", "otlp-skips", T, 5));

            String group = SharedKafka.unique("bad");
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir), TestTopics.config(group, formats))) {
                for (String topic : formats.keySet()) {
                    topics.awaitCommittedToEnd(group, topic, 1);
                }
                assertThat(StoredSamples.of(sluice.head).size()).isEqualTo(good.size());
                List<String> stored = new ArrayList<>();
                for (String fmt : List.of("before", "after", "skips", "otlp-skips", "partial")) {
                    stored.addAll(FormatCases.stored(sluice.head, fmt));
                }
                assertThat(stored).as("good records stored, nothing of the bad ones").containsExactlyInAnyOrderElementsOf(good);
                assertThat(nonZero(sluice, "sluice.records.rejected", "reason")).isEqualTo(rejected);
                Map<String, Double> skipped = nonZero(sluice, "sluice.decode.skipped", "format", "reason");
                assertThat(skipped).containsKey("influx/line_syntax").containsEntry("influx/string_field", 1.0)
                        .containsEntry("otlp/metric_delta_temporality", 1.0).containsEntry("otlp/metric_exponential_histogram", 1.0);
                double influxLines = skipped.entrySet().stream().filter(e -> e.getKey().startsWith("influx/line_"))
                        .mapToDouble(Map.Entry::getValue).sum();
                assertThat(influxLines).as("the broken line and the OTLP bytes' lines on the influx topic").isGreaterThanOrEqualTo(2);
                assertThat(sluice.scrape()).contains("sluice_decode_skipped_total{format=\"otlp\",reason=\"metric_delta_temporality\"} 1.0");
            }
        }
    }

    /** A bad record: its value, Content-Type header (or null) and the reason it must be rejected for. */
    private record Bad(byte[] value, String contentType, String reason) {
    }

    private static List<Bad> bad(PayloadFormat format) {
        return switch (format) {
            case PROMETHEUS_REMOTE_WRITE -> List.of(
                    new Bad(snappy(cut(rw1Request(), 5)), null, "truncated"),
                    new Bad(utf8("not snappy at all, just text"), null, "bad_compression"),
                    new Bad(snappy(notUtf8(rw1WithMark())), null, "invalid_utf8"),
                    new Bad(FormatCases.encode(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2,
                            FormatCases.series(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, "partial")).getFirst(), null, "unsupported_version"),
                    new Bad(good(PayloadFormat.PROMETHEUS_REMOTE_WRITE, "partial"), "text/plain", "unsupported_content_type"));
            case PROMETHEUS_REMOTE_WRITE_V2 -> List.of(
                    new Bad(snappy(cut(rw2Request("__name__", "e2e_x", "fmt", "partial"), 3)), null, "truncated"),
                    new Bad(snappy(rw2Request("__name__", "e2e_x", "fmt", "partial", "bad", MARK, "9")), null, "bad_schema"),
                    new Bad(snappy(notUtf8(rw2Request("__name__", "e2e_x", "fmt", "partial", "bad", MARK))), null, "invalid_utf8"),
                    new Bad(good(PayloadFormat.PROMETHEUS_REMOTE_WRITE, "partial"), null, "unsupported_version"));
            case OTLP -> List.of(
                    new Bad(cut(otlpWithMark(), 4), null, "truncated"),
                    new Bad(notUtf8(otlpWithMark()), null, "invalid_utf8"),
                    new Bad(utf8("e2e_x,fmt=partial v=1 " + T * 1_000_000 + "\n"), null, "bad_protobuf"));
            case JSON -> List.of(
                    new Bad(utf8("{\"name\":\"e2e_x\",\"labels\":{\"fmt\":\"partial\"},\"value\":"), null, "bad_json"),
                    new Bad(notUtf8(utf8(jsonObject(MARK, "\"1\""))), null, "invalid_utf8"),
                    new Bad(utf8(jsonObject("x", null)), null, "bad_schema"),
                    // prometheus-kafka-adapter always writes labels (with __name__): without them it is not its message
                    new Bad(utf8("{\"name\":\"e2e_x\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"value\":\"1\"}"), null, "bad_schema"),
                    new Bad(otlpWithMark(), null, "bad_json"));
            default -> List.of(); // influx rejects lines, not records (but an empty one): see the skipped counters
        };
    }

    /** Sends one good record of {@code format} with case {@code fmt}; returns its stored lines. */
    private static List<String> sendGood(TestTopics topics, String topic, PayloadFormat format, String fmt) {
        for (byte[] value : FormatCases.encode(format, goodSeries(format, fmt))) {
            topics.sendAndWait(topic, 0, value);
        }
        return FormatCases.expected(format, goodSeries(format, fmt), new HashMap<>());
    }

    private static byte[] good(PayloadFormat format, String fmt) {
        return FormatCases.encode(format, goodSeries(format, fmt)).getFirst();
    }

    private static List<EncodedSeries> goodSeries(PayloadFormat format, String fmt) {
        Map<String, String> labels = new java.util.LinkedHashMap<>();
        labels.put("__name__", "e2e_good_" + format.configName().replace('-', '_'));
        labels.put("fmt", fmt);
        return List.of(new EncodedSeries(labels, new long[] {T, T + 1}, new long[] {bits(1), bits(2)}));
    }

    private static byte[] rw1Request() {
        RemoteWriteEncoder e = new RemoteWriteEncoder(256);
        e.reset();
        e.beginSeries();
        e.label(utf8("__name__"), utf8("e2e_x"));
        e.label(utf8("fmt"), utf8("partial"));
        e.sample(T, 1);
        e.endSeries();
        e.finish();
        return Arrays.copyOf(e.uncompressed(), e.uncompressedLength());
    }

    /** An uncompressed 1.0 request: a good series, then one whose label value is {@link #MARK}. */
    private static byte[] rw1WithMark() {
        RemoteWriteEncoder e = new RemoteWriteEncoder(256);
        e.reset();
        for (String value : List.of("ok", MARK)) {
            e.beginSeries();
            e.label(utf8("__name__"), utf8("e2e_x_" + value));
            e.label(utf8("fmt"), utf8("partial"));
            e.label(utf8("v"), utf8(value));
            e.sample(T, 1);
            e.endSeries();
        }
        e.finish();
        return Arrays.copyOf(e.uncompressed(), e.uncompressedLength());
    }

    /**
     * An uncompressed 2.0 request: a good series of case "partial", then one with the given label pairs
     * (an odd trailing element is a reference number, to point past the symbols).
     */
    private static byte[] rw2Request(String... labels) {
        List<String> symbols = new ArrayList<>(List.of("", "__name__", "e2e_ok", "fmt", "partial"));
        RemoteWriteV2.Request.Builder request = RemoteWriteV2.Request.newBuilder();
        request.addTimeseriesBuilder().addAllLabelsRefs(List.of(1, 2, 3, 4))
                .addSamples(RemoteWriteV2.Sample.newBuilder().setValue(1).setTimestamp(T));
        RemoteWriteV2.TimeSeries.Builder second = request.addTimeseriesBuilder()
                .addSamples(RemoteWriteV2.Sample.newBuilder().setValue(2).setTimestamp(T));
        for (int i = 0; i < labels.length; i++) {
            if (i == labels.length - 1 && labels.length % 2 == 1 && labels[i].chars().allMatch(Character::isDigit)) {
                second.addLabelsRefs(Integer.parseInt(labels[i]) + 90); // past the symbols
                continue;
            }
            int ref = symbols.indexOf(labels[i]);
            if (ref < 0) {
                symbols.add(labels[i]);
                ref = symbols.size() - 1;
            }
            second.addLabelsRefs(ref);
        }
        return request.addAllSymbols(symbols).build().toByteArray();
    }

    /** A good gauge of case "partial", then one whose attribute value is {@link #MARK}. */
    private static byte[] otlpWithMark() {
        return OtlpMetrics.ExportMetricsServiceRequest.newBuilder().addResourceMetrics(OtlpMetrics.ResourceMetrics.newBuilder()
                .addScopeMetrics(OtlpMetrics.ScopeMetrics.newBuilder()
                        .addMetrics(gauge("e2e_ok", 1, "partial"))
                        .addMetrics(gauge("e2e_bad", 2, MARK)))).build().toByteArray();
    }

    /** An OTLP request with a delta sum and an exponential histogram (skipped) and a gauge (stored). */
    private static byte[] otlpWithSkips() {
        OtlpMetrics.NumberDataPoint point = OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano(T * 1_000_000).setAsDouble(3)
                .addAttributes(kv("fmt", "otlp-skips")).build();
        return OtlpMetrics.ExportMetricsServiceRequest.newBuilder().addResourceMetrics(OtlpMetrics.ResourceMetrics.newBuilder()
                .addScopeMetrics(OtlpMetrics.ScopeMetrics.newBuilder()
                        .addMetrics(OtlpMetrics.Metric.newBuilder().setName("e2e_delta").setSum(OtlpMetrics.Sum.newBuilder()
                                .setIsMonotonic(true).setAggregationTemporality(OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                                .addDataPoints(point)))
                        .addMetrics(OtlpMetrics.Metric.newBuilder().setName("e2e_exp").setExponentialHistogram(
                                OtlpMetrics.ExponentialHistogram.newBuilder().setAggregationTemporality(
                                        OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                        .addDataPoints(OtlpMetrics.ExponentialHistogramDataPoint.newBuilder()
                                                .setTimeUnixNano(T * 1_000_000).setCount(1))))
                        .addMetrics(gauge("e2e_kept", 5, "otlp-skips")))).build().toByteArray();
    }

    private static OtlpMetrics.Metric gauge(String name, double value, String fmt) {
        return OtlpMetrics.Metric.newBuilder().setName(name).setGauge(OtlpMetrics.Gauge.newBuilder().addDataPoints(
                OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano(T * 1_000_000).setAsDouble(value)
                        .addAttributes(kv("fmt", fmt)))).build();
    }

    private static OtlpMetrics.KeyValue kv(String key, String value) {
        return OtlpMetrics.KeyValue.newBuilder().setKey(key).setValue(OtlpMetrics.AnyValue.newBuilder().setStringValue(value)).build();
    }

    /** A json object of case "partial"; its label v is {@code v}, its value member {@code value} (absent if null). */
    private static String jsonObject(String v, String value) {
        return "{\"name\":\"e2e_x\",\"labels\":{\"fmt\":\"partial\",\"v\":\"" + v + "\"},\"timestamp\":\"2025-11-22T08:26:40Z\""
                + (value == null ? "" : ",\"value\":" + value) + "}";
    }

    /** The line a stored sample of {@code name{fmt=...}} reads as. */
    private static String line(String name, String fmt, long t, double v) {
        return io.sluice.server.format.SeriesTextSink.line(name + "{fmt=\"" + fmt + "\"}", t, v);
    }

    /** {@code value} with every {@link #MARK} replaced by bytes that are not UTF-8 (the same length). */
    private static byte[] notUtf8(byte[] value) {
        byte[] out = value.clone();
        byte[] mark = utf8(MARK);
        int found = 0;
        for (int i = 0; i + mark.length <= out.length; i++) {
            if (Arrays.equals(out, i, i + mark.length, mark, 0, mark.length)) {
                System.arraycopy(NOT_UTF8, 0, out, i, NOT_UTF8.length);
                found++;
            }
        }
        assertThat(found).as("marks in the value").isPositive();
        return out;
    }

    /** Counters of {@code name} with a non-zero count, by their tags' values joined with '/'. */
    private static Map<String, Double> nonZero(IngestInstance sluice, String name, String... tagKeys) {
        Map<String, Double> out = new TreeMap<>();
        for (Counter c : sluice.registry.find(name).counters()) {
            if (c.count() != 0) {
                List<String> key = new ArrayList<>();
                for (String tag : tagKeys) {
                    key.add(c.getId().getTag(tag));
                }
                out.put(String.join("/", key), c.count());
            }
        }
        return out;
    }

    /** {@code value} without its last {@code bytes} bytes. */
    private static byte[] cut(byte[] value, int bytes) {
        return Arrays.copyOf(value, value.length - bytes);
    }

    private static byte[] snappy(byte[] uncompressed) {
        SnappyJavaCompressor compressor = new SnappyJavaCompressor();
        byte[] out = new byte[compressor.maxCompressedLength(uncompressed.length)];
        return Arrays.copyOf(out, compressor.compress(uncompressed, 0, uncompressed.length, out, 0, out.length));
    }

    private static long bits(double v) {
        return Double.doubleToRawLongBits(v);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
