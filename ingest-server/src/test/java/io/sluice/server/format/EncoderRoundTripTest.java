package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.server.format.otlp.pb.OtlpMetrics;
import io.sluice.server.format.remotewrite.RemoteWriteV2Encoder;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2;
import io.sluice.tools.loadgen.PayloadWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every encoder's values, decoded by its format's decoder, give back the series and samples written,
 * within what the format carries (seeded random series: special values, UTF-8 and characters that need
 * escaping, empty label values, many labels). The OTLP and remote-write 2.0 values are also read with
 * the protobuf-java classes generated from the official .proto files, so they are what other tools read.
 */
class EncoderRoundTripTest {
    private static final long STALE = SpecialValues.STALE_NAN_BITS;
    private static final long T = 1_763_800_000_000L;

    @ParameterizedTest
    @EnumSource(value = PayloadFormat.class, names = "SLUICE", mode = EnumSource.Mode.EXCLUDE)
    void decoderGivesBackWhatTheEncoderWrote(PayloadFormat format) throws PayloadException {
        Random random = new Random(format.ordinal() * 31L + 7);
        RecordEncoder encoder = PayloadWriter.encoder(format);
        PayloadDecoder decoder = format.newDecoder(DecoderLimits.DEFAULTS);
        for (int round = 0; round < 20; round++) {
            List<EncodedSeries> series = randomSeries(format, random, 1 + random.nextInt(30));
            SeriesTextSink decoded = decode(format, encoder, decoder, series);
            assertThat(decoded.lines()).as("round %d", round).containsExactlyElementsOf(expected(format, series));
        }
    }

    @Test
    void otlpValuesAreReadByTheOfficialClasses() throws Exception {
        List<EncodedSeries> series = randomSeries(PayloadFormat.OTLP, new Random(11), 40);
        RecordEncoder encoder = PayloadWriter.encoder(PayloadFormat.OTLP);
        EncodedSeries.encode(encoder, series);
        OtlpMetrics.ExportMetricsServiceRequest request = OtlpMetrics.ExportMetricsServiceRequest.parseFrom(
                java.util.Arrays.copyOfRange(encoder.buffer(), 0, encoder.valueLength(0)));
        List<String> read = new ArrayList<>();
        for (OtlpMetrics.ResourceMetrics rm : request.getResourceMetricsList()) {
            Map<String, String> resource = new TreeMap<>();
            rm.getResource().getAttributesList().forEach(kv -> resource.put(kv.getKey(), kv.getValue().getStringValue()));
            for (OtlpMetrics.ScopeMetrics sm : rm.getScopeMetricsList()) {
                for (OtlpMetrics.Metric m : sm.getMetricsList()) {
                    boolean sum = m.hasSum();
                    if (sum) {
                        assertThat(m.getSum().getIsMonotonic()).isTrue();
                        assertThat(m.getSum().getAggregationTemporality())
                                .isEqualTo(OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
                    }
                    List<OtlpMetrics.NumberDataPoint> points = sum ? m.getSum().getDataPointsList() : m.getGauge().getDataPointsList();
                    for (OtlpMetrics.NumberDataPoint p : points) {
                        Map<String, String> labels = new TreeMap<>();
                        labels.put("__name__", m.getName() + (sum ? "_total" : ""));
                        if (resource.containsKey("service.name")) {
                            labels.put("job", resource.get("service.name"));
                        }
                        if (resource.containsKey("service.instance.id")) {
                            labels.put("instance", resource.get("service.instance.id"));
                        }
                        p.getAttributesList().forEach(kv -> labels.put(kv.getKey(), kv.getValue().getStringValue()));
                        long bits = p.getFlags() == 1 ? STALE : Double.doubleToRawLongBits(p.getAsDouble());
                        assertThat(p.getValueCase()).isEqualTo(p.getFlags() == 1 ? OtlpMetrics.NumberDataPoint.ValueCase.VALUE_NOT_SET
                                : OtlpMetrics.NumberDataPoint.ValueCase.AS_DOUBLE);
                        read.add(SeriesTextSink.line(SeriesTextSink.text(labels), p.getTimeUnixNano() / 1_000_000, bits));
                    }
                }
            }
        }
        assertThat(read).containsExactlyElementsOf(expected(PayloadFormat.OTLP, series));
    }

    @Test
    void remoteWrite2ValuesAreReadByTheOfficialClasses() throws Exception {
        List<EncodedSeries> series = randomSeries(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, new Random(12), 40);
        RemoteWriteV2Encoder encoder = new RemoteWriteV2Encoder(1024);
        EncodedSeries.encode(encoder, series);
        assertThat(encoder.contentType()).isEqualTo("application/x-protobuf;proto=io.prometheus.write.v2.Request");
        byte[] compressed = java.util.Arrays.copyOfRange(encoder.buffer(), 0, encoder.valueLength(0));
        SnappyJavaDecompressor snappy = new SnappyJavaDecompressor();
        byte[] raw = new byte[snappy.getUncompressedLength(compressed, 0)];
        snappy.decompress(compressed, 0, compressed.length, raw, 0, raw.length);
        RemoteWriteV2.Request request = RemoteWriteV2.Request.parseFrom(raw);
        assertThat(request.getSymbols(0)).isEmpty();
        assertThat(request.getSymbolsList()).doesNotHaveDuplicates();
        List<String> read = new ArrayList<>();
        for (RemoteWriteV2.TimeSeries ts : request.getTimeseriesList()) {
            Map<String, String> labels = new TreeMap<>();
            for (int i = 0; i < ts.getLabelsRefsCount(); i += 2) {
                labels.put(request.getSymbols(ts.getLabelsRefs(i)), request.getSymbols(ts.getLabelsRefs(i + 1)));
            }
            for (RemoteWriteV2.Sample s : ts.getSamplesList()) {
                read.add(SeriesTextSink.line(SeriesTextSink.text(labels), s.getTimestamp(), Double.doubleToRawLongBits(s.getValue())));
            }
        }
        assertThat(read).containsExactlyElementsOf(expected(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2, series));
    }

    @Test
    void whatAFormatCannotCarryIsRefusedByName() {
        assertThatThrownBy(() -> encodeOne(PayloadFormat.INFLUX, "up", T, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
        assertThatThrownBy(() -> encodeOne(PayloadFormat.INFLUX, "a_b", T, Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Infinity");
        assertThatThrownBy(() -> encodeOne(PayloadFormat.INFLUX, "nounderscore", T, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("measurement_field");
        assertThatThrownBy(() -> encodeOne(PayloadFormat.OTLP, "a_b", -1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1 ms");
        assertThatThrownBy(() -> encodeOne(PayloadFormat.JSON, "a_b", 253_402_300_800_000L, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RFC 3339");
    }

    private static void encodeOne(PayloadFormat format, String name, long t, double v) {
        RecordEncoder encoder = PayloadWriter.encoder(format);
        encoder.reset();
        encoder.beginSeries();
        encoder.label(utf8("__name__"), utf8(name));
        encoder.sample(t, v);
        encoder.endSeries();
        encoder.finishValues();
    }

    static SeriesTextSink decode(PayloadFormat format, RecordEncoder encoder, PayloadDecoder decoder, List<EncodedSeries> series)
            throws PayloadException {
        int values = EncodedSeries.encode(encoder, series);
        if (format != PayloadFormat.JSON) {
            assertThat(values).isEqualTo(1);
        }
        SeriesTextSink decoded = new SeriesTextSink();
        for (int i = 0; i < values; i++) {
            decoder.decode(encoder.buffer(), encoder.valueOffset(i), encoder.valueLength(i), T, decoded);
        }
        return decoded;
    }

    /** What the decoder must give back: the samples as written, NaN normalised where text carries no payload. */
    static List<String> expected(PayloadFormat format, List<EncodedSeries> series) {
        List<String> lines = new ArrayList<>();
        for (EncodedSeries s : series) {
            String text = SeriesTextSink.text(s.labels());
            for (int i = 0; i < s.timestampsMs().length; i++) {
                long bits = s.valueBits()[i];
                if (format == PayloadFormat.JSON && Double.isNaN(Double.longBitsToDouble(bits))) {
                    bits = DecimalParser.NAN_BITS;
                }
                lines.add(SeriesTextSink.line(text, s.timestampsMs()[i], bits));
            }
        }
        return lines;
    }

    /** Random series within what {@code format} carries. */
    static List<EncodedSeries> randomSeries(PayloadFormat format, Random random, int count) {
        List<EncodedSeries> out = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            Map<String, String> labels = new LinkedHashMap<>();
            int extra = random.nextInt(8) == 0 ? 30 : random.nextInt(5);
            for (int l = 0; l < extra; l++) {
                labels.put(labelName(format, random, l), labelValue(format, random));
            }
            int at = random.nextInt(labels.size() + 1); // __name__ anywhere among the labels
            Map<String, String> ordered = new LinkedHashMap<>();
            int i = 0;
            for (Map.Entry<String, String> e : labels.entrySet()) {
                if (i++ == at) {
                    ordered.put("__name__", metricName(format, random, s));
                }
                ordered.put(e.getKey(), e.getValue());
            }
            ordered.putIfAbsent("__name__", metricName(format, random, s));
            int samples = 1 + random.nextInt(6);
            long[] ts = new long[samples];
            long[] bits = new long[samples];
            long t = timestamp(format, random);
            for (int k = 0; k < samples; k++) {
                ts[k] = t;
                t += random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(60_000); // duplicates kept: decoders do not judge them
                bits[k] = value(format, random);
            }
            out.add(new EncodedSeries(ordered, ts, bits));
        }
        return out;
    }

    private static String metricName(PayloadFormat format, Random random, int s) {
        return switch (format) {
            case OTLP -> random.nextBoolean() ? "otel_requests_" + s + "_total" : "otel_queue_" + s + "_depth";
            case INFLUX -> random.nextBoolean() ? "temp\\ room,x=y_" + s + "_ünï, ç" : "node_cpu_seconds_total" + s;
            default -> random.nextBoolean() ? "spécial 🙂 \"q\" \\ " + s : "node_cpu_seconds_total_" + s;
        };
    }

    private static String labelName(PayloadFormat format, Random random, int l) {
        if (format == PayloadFormat.OTLP) {
            return switch (l) {
                case 0 -> "job";
                case 1 -> "instance";
                default -> "attr" + l;
            };
        }
        return switch (random.nextInt(4)) {
            case 0 -> "l" + l + "=,\\ ä";
            case 1 -> "ключ" + l;
            default -> "label_" + l;
        };
    }

    private static String labelValue(PayloadFormat format, Random random) {
        String text = switch (random.nextInt(6)) {
            case 0 -> "";
            case 1 -> "a,b=c d\\e\"f";
            default -> SpecialValues.text(random);
        };
        if (format != PayloadFormat.INFLUX) {
            return random.nextInt(10) == 0 ? text + "\n\t\u0001" : text;
        }
        return text;
    }

    private static long timestamp(PayloadFormat format, Random random) {
        return switch (format) {
            case OTLP, JSON, INFLUX -> T + random.nextInt(1_000_000) * 15L - random.nextInt(2) * 1_700_000_000_000L;
            default -> SpecialValues.timestampMs(random) / 2; // room for the increments
        };
    }

    private static long value(PayloadFormat format, Random random) {
        double v = SpecialValues.value(random);
        if (format == PayloadFormat.INFLUX) {
            while (!Double.isFinite(v)) {
                v = SpecialValues.value(random);
            }
        }
        return Double.doubleToRawLongBits(v);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
