package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.server.format.otlp.pb.OtlpMetrics;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each format decodes to is what a real head shard stores and gives back: labels accepted by the
 * head's validation (empty values dropped), values bit for bit through the XOR chunks (NaN payloads,
 * the stale marker, ±Inf, -0.0, subnormals), UTF-8 and escaped text, many labels; duplicate and
 * out-of-order timestamps judged by the head's rules. Records carry several series and samples each.
 */
class StoredRoundTripTest {
    private static final long T = 1_763_800_000_000L;
    private static final long STALE = 0x7ff0000000000002L;
    private static final double[] SPECIAL = {
        Double.longBitsToDouble(STALE), Double.longBitsToDouble(0x7ff8000000000001L), Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, Double.longBitsToDouble(0x000fffffffffffffL), Double.MAX_VALUE, 1.5,
    };
    /** Timestamps of the series that tests the head's rules: in order, older, duplicate, same time other value, newer. */
    private static final long[] ORDER_TS = {T + 2, T + 1, T + 2, T + 2, T + 3};
    private static final double[] ORDER_VALUES = {1, 2, 1, 9, 3};

    @TempDir
    Path dir;

    /** Decodes the records into a shard and checks that it stores exactly what the decoder emitted. */
    private List<String> assertStoredAsDecoded(PayloadFormat format, List<byte[]> records) throws IOException, PayloadException {
        PayloadDecoder decoder = format.newDecoder(DecoderLimits.DEFAULTS);
        SeriesTextSink decoded = new SeriesTextSink();
        try (ShardSink shard = new ShardSink(dir.resolve(format.configName()))) {
            for (byte[] record : records) {
                decoder.decode(record, 0, record.length, T, decoded);
                shard.nextRecord();
                format.newDecoder(DecoderLimits.DEFAULTS).decode(record, 0, record.length, T, shard);
            }
            List<String> stored = shard.stored();
            assertThat(shard.rejectedSeries()).as("series the head refused").isEmpty();
            Map<String, Long> rejected = new HashMap<>();
            List<String> expected = applyHeadRules(decoded.lines(), rejected);
            assertThat(sorted(stored)).isEqualTo(sorted(expected));
            assertThat(shard.count(ShardStats.Counter.SAMPLES_TOO_OLD)).isEqualTo(rejected.getOrDefault("too_old", 0L));
            assertThat(shard.count(ShardStats.Counter.SAMPLES_OUT_OF_ORDER)).isEqualTo(rejected.getOrDefault("stored_out_of_order", 0L));
            assertThat(shard.count(ShardStats.Counter.SAMPLES_DUPLICATE)).isEqualTo(rejected.getOrDefault("duplicate", 0L));
            assertThat(shard.count(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP))
                    .isEqualTo(rejected.getOrDefault("duplicate_timestamp", 0L));
            assertThat(stored).as("samples stored").hasSizeGreaterThan(5);
            return stored;
        }
    }

    /**
     * The head's rules per series: a sample at a stored timestamp is a duplicate (same bits) or a
     * duplicate timestamp; a newer one is stored; an older one is stored if inside the out-of-order
     * window of the shard's newest sample (counted "stored_out_of_order"), else too old.
     */
    private static List<String> applyHeadRules(List<String> lines, Map<String, Long> rejected) {
        Map<String, Map<Long, Long>> stored = new HashMap<>();
        Map<String, Long> last = new HashMap<>();
        long newest = Long.MIN_VALUE;
        List<String> kept = new ArrayList<>();
        for (String line : lines) {
            int valueAt = line.lastIndexOf(' ');
            int timeAt = line.lastIndexOf(' ', valueAt - 1);
            String series = line.substring(0, timeAt);
            long ts = Long.parseLong(line.substring(timeAt + 1, valueAt));
            long bits = Long.parseUnsignedLong(line.substring(valueAt + 1), 16);
            Map<Long, Long> samples = stored.computeIfAbsent(series, k -> new HashMap<>());
            Long existing = samples.get(ts);
            Long previous = last.get(series);
            if (existing != null) {
                rejected.merge(bits == existing ? "duplicate" : "duplicate_timestamp", 1L, Long::sum);
            } else if (previous != null && ts < previous) {
                if (ts < newest - io.sluice.core.head.shard.ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS) {
                    rejected.merge("too_old", 1L, Long::sum);
                } else {
                    rejected.merge("stored_out_of_order", 1L, Long::sum);
                    samples.put(ts, bits);
                    kept.add(line);
                }
            } else {
                samples.put(ts, bits);
                last.put(series, ts);
                newest = Math.max(newest, ts);
                kept.add(line);
            }
        }
        return kept;
    }

    private static List<String> sorted(List<String> lines) {
        return lines.stream().sorted().toList();
    }

    private static String manyLabels(String separator, String equals, String quote) {
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            labels.append(i == 0 ? "" : separator).append(quote).append("l").append(i).append(quote).append(equals)
                    .append(quote).append("v").append(i).append(quote);
        }
        return labels.toString();
    }

    @Test
    void influx() throws Exception {
        String text = "temp\\ room,ort=Zürich\\,CH,name\\=x=a\\ b reading=-0,tiny=4.9e-324,huge=1.7976931348623157e308,"
                + "count=42i,big=18446744073709551615u,on=true,label=\"skipped\" " + T * 1_000_000 + "\n"
                + "many," + manyLabels(",", "=", "") + " v=1 " + T * 1_000_000 + "\n";
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < ORDER_TS.length; i++) {
            order.append("order v=").append(ORDER_VALUES[i]).append(' ').append(ORDER_TS[i] * 1_000_000 + 999_999).append('\n');
        }
        List<String> stored = assertStoredAsDecoded(PayloadFormat.INFLUX,
                List.of(text.getBytes(StandardCharsets.UTF_8), order.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(stored).contains(SeriesTextSink.line("temp room_reading{name=x=\"a b\",ort=\"Zürich,CH\"}", T, -0.0),
                SeriesTextSink.line("temp room_tiny{name=x=\"a b\",ort=\"Zürich,CH\"}", T, Double.MIN_VALUE));
    }

    @Test
    void json() throws Exception {
        List<byte[]> records = new ArrayList<>();
        String[] values = {"NaN", "+Inf", "-Inf", "-0", "4.9e-324", "1.7976931348623157e308"};
        for (int i = 0; i < values.length; i++) {
            records.add(json("special", "\"kind\":\"" + i + "\",\"empty\":\"\",\"esc\\u00e9\":\"\\ud83d\\ude42\\\"\\n\"", T, values[i]));
        }
        records.add(json("many", manyLabels(",", ":", "\""), T, "1"));
        for (int i = 0; i < ORDER_TS.length; i++) {
            records.add(json("order", "\"job\":\"x\"", ORDER_TS[i], Double.toString(ORDER_VALUES[i])));
        }
        List<String> stored = assertStoredAsDecoded(PayloadFormat.JSON, records);
        assertThat(stored).contains(SeriesTextSink.line("special{escé=\"🙂\"\n\",kind=\"0\"}", T, DecimalParser.NAN_BITS));
    }

    private static byte[] json(String name, String labels, long ms, String value) {
        String time = java.time.Instant.ofEpochMilli(ms).toString();
        return ("{\"name\":\"" + name + "\",\"labels\":{" + labels + "},\"timestamp\":\"" + time + "\",\"value\":\"" + value + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void remoteWrite() throws Exception {
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(1 << 16);
        encoder.beginSeries();
        encoder.label(utf8("__name__"), utf8("spécial"));
        encoder.label(utf8("empty"), utf8(""));
        for (int i = 0; i < SPECIAL.length; i++) {
            encoder.sample(T + i, SPECIAL[i]);
        }
        encoder.endSeries();
        encoder.beginSeries();
        encoder.label(utf8("__name__"), utf8("order"));
        for (int i = 0; i < ORDER_TS.length; i++) {
            encoder.sample(ORDER_TS[i], ORDER_VALUES[i]);
        }
        encoder.endSeries();
        encoder.finish();
        List<String> stored = assertStoredAsDecoded(PayloadFormat.PROMETHEUS_REMOTE_WRITE,
                List.of(Arrays.copyOf(encoder.compressed(), encoder.compressedLength())));
        assertThat(stored).contains(SeriesTextSink.line("spécial{}", T, STALE));
    }

    @Test
    void remoteWrite2() throws Exception {
        RemoteWriteV2.Request.Builder request = RemoteWriteV2.Request.newBuilder()
                .addAllSymbols(List.of("", "__name__", "spécial", "empty", "order", "🙂 label", "a\"b\\c"));
        RemoteWriteV2.TimeSeries.Builder special = request.addTimeseriesBuilder().addAllLabelsRefs(List.of(1, 2, 3, 0, 5, 6));
        for (int i = 0; i < SPECIAL.length; i++) {
            special.addSamples(RemoteWriteV2.Sample.newBuilder().setValue(SPECIAL[i]).setTimestamp(T + i));
        }
        RemoteWriteV2.TimeSeries.Builder order = request.addTimeseriesBuilder().addAllLabelsRefs(List.of(1, 4));
        for (int i = 0; i < ORDER_TS.length; i++) {
            order.addSamples(RemoteWriteV2.Sample.newBuilder().setValue(ORDER_VALUES[i]).setTimestamp(ORDER_TS[i]));
        }
        List<String> stored = assertStoredAsDecoded(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, List.of(snappy(request.build().toByteArray())));
        assertThat(stored).contains(SeriesTextSink.line("spécial{🙂 label=\"a\"b\\c\"}", T, STALE),
                SeriesTextSink.line("spécial{🙂 label=\"a\"b\\c\"}", T + 5, -0.0));
    }

    @Test
    void otlp() throws Exception {
        OtlpMetrics.Gauge.Builder special = OtlpMetrics.Gauge.newBuilder();
        for (int i = 0; i < SPECIAL.length; i++) {
            special.addDataPoints(OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano((T + i) * 1_000_000 + 999_999)
                    .setAsDouble(SPECIAL[i]).addAttributes(kv("ünï.code", "🙂\"\\")).addAttributes(kv("empty", "")));
        }
        special.addDataPoints(OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano((T + 20) * 1_000_000).setFlags(1)
                .addAttributes(kv("ünï.code", "🙂\"\\")));
        OtlpMetrics.Sum.Builder order = OtlpMetrics.Sum.newBuilder().setIsMonotonic(true)
                .setAggregationTemporality(OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        for (int i = 0; i < ORDER_TS.length; i++) {
            order.addDataPoints(OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano(ORDER_TS[i] * 1_000_000).setAsDouble(ORDER_VALUES[i]));
        }
        OtlpMetrics.NumberDataPoint.Builder many = OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano(T * 1_000_000).setAsInt(7);
        for (int i = 0; i < 100; i++) {
            many.addAttributes(kv("attr.number." + i, "v" + i));
        }
        OtlpMetrics.ExportMetricsServiceRequest request = OtlpMetrics.ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(OtlpMetrics.ResourceMetrics.newBuilder()
                        .setResource(OtlpMetrics.Resource.newBuilder().addAttributes(kv("service.name", "svc"))
                                .addAttributes(kv("host.name", "h1")))
                        .addScopeMetrics(OtlpMetrics.ScopeMetrics.newBuilder()
                                .setScope(OtlpMetrics.InstrumentationScope.newBuilder().setName("lib"))
                                .addMetrics(OtlpMetrics.Metric.newBuilder().setName("spécial.value").setGauge(special))
                                .addMetrics(OtlpMetrics.Metric.newBuilder().setName("order").setSum(order))
                                .addMetrics(OtlpMetrics.Metric.newBuilder().setName("many").setUnit("s")
                                        .setGauge(OtlpMetrics.Gauge.newBuilder().addDataPoints(many)))))
                .build();
        List<String> stored = assertStoredAsDecoded(PayloadFormat.OTLP, List.of(request.toByteArray()));
        String series = "sp_cial_value{_n_code=\"🙂\"\\\",job=\"svc\",otel_scope_name=\"lib\"}";
        assertThat(stored).contains(SeriesTextSink.line(series, T, STALE), SeriesTextSink.line(series, T + 20, STALE),
                SeriesTextSink.line("target_info{host_name=\"h1\",job=\"svc\"}", T + 20, 1.0));
    }

    @Test
    void invalidUtf8InProtobufStringsIsHandedOverForTheHeadToReject() throws Exception {
        // The protobuf decoders pass label bytes through as remote-write 1.0 does; the head's validation
        // rejects the series (and the consumer counts it), the other series of the record are stored.
        // protobuf-java refuses to write such a string, so the symbols are written as raw fields (4).
        UnknownFieldSet.Field.Builder symbols = UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(ByteString.EMPTY).addLengthDelimited(ByteString.copyFromUtf8("__name__"))
                .addLengthDelimited(ByteString.copyFrom(new byte[] {'b', (byte) 0xFF})).addLengthDelimited(ByteString.copyFromUtf8("ok"));
        RemoteWriteV2.Request request = RemoteWriteV2.Request.newBuilder()
                .setUnknownFields(UnknownFieldSet.newBuilder().addField(4, symbols.build()).build())
                .addTimeseries(RemoteWriteV2.TimeSeries.newBuilder().addAllLabelsRefs(List.of(1, 2))
                        .addSamples(RemoteWriteV2.Sample.newBuilder().setValue(1).setTimestamp(T)))
                .addTimeseries(RemoteWriteV2.TimeSeries.newBuilder().addAllLabelsRefs(List.of(1, 3))
                        .addSamples(RemoteWriteV2.Sample.newBuilder().setValue(2).setTimestamp(T)))
                .build();
        byte[] record = snappy(request.toByteArray());
        try (ShardSink shard = new ShardSink(dir.resolve("utf8"))) {
            shard.nextRecord();
            PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2.newDecoder(DecoderLimits.DEFAULTS).decode(record, 0, record.length, T, shard);
            assertThat(shard.stored()).containsExactly(SeriesTextSink.line("ok{}", T, 2.0));
            assertThat(shard.rejectedSeries()).containsExactly(Map.entry(LabelsStatus.INVALID_UTF8, 1));
        }
    }

    private static OtlpMetrics.KeyValue kv(String key, String value) {
        return OtlpMetrics.KeyValue.newBuilder().setKey(key).setValue(OtlpMetrics.AnyValue.newBuilder().setStringValue(value)).build();
    }

    private static byte[] snappy(byte[] uncompressed) {
        SnappyJavaCompressor compressor = new SnappyJavaCompressor();
        byte[] out = new byte[compressor.maxCompressedLength(uncompressed.length)];
        return Arrays.copyOf(out, compressor.compress(uncompressed, 0, uncompressed.length, out, 0, out.length));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
