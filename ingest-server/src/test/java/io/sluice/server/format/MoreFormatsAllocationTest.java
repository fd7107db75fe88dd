package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.sluice.server.format.otlp.pb.OtlpMetrics;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The good path of the influx, json, remote-write 2.0 and otlp decoders allocates nothing: after a
 * warm-up, decoding at least 1,000,000 samples of realistic records into a counting sink allocates less
 * than 1 byte per sample (ThreadMXBean's count for this thread; independent of the machine's speed).
 */
class MoreFormatsAllocationTest {
    private static final int SERIES = 1000;
    private static final int SAMPLES_PER_SERIES = 10;
    private static final int WARMUP_SAMPLES = 3_000_000;
    private static final int MEASURED_SAMPLES = 1_000_000;
    private static final long START_MS = 1_763_800_000_000L;
    private static final long SEED = 0xA110CL;

    /** Decodes {@code records} round robin until {@code samples} samples; returns the bytes allocated. */
    private static long allocatedDecoding(PayloadDecoder decoder, List<byte[]> records, long samples) throws PayloadException {
        CountingSink sink = new CountingSink();
        for (int i = 0; sink.samples() < WARMUP_SAMPLES; i++) {
            byte[] record = records.get(i % records.size());
            decoder.decode(record, 0, record.length, START_MS, sink);
        }
        long warm = sink.samples();
        long before = AllocationMeter.allocatedBytes();
        for (int i = 0; sink.samples() - warm < samples; i++) {
            byte[] record = records.get(i % records.size());
            decoder.decode(record, 0, record.length, START_MS, sink);
        }
        long allocated = AllocationMeter.allocatedBytes() - before;
        assertThat(sink.samples() - warm).isGreaterThanOrEqualTo(samples);
        return allocated;
    }

    private static String[] labels(int series) {
        String[] pairs = new String[18];
        String[] names = {"job", "instance", "cluster", "region", "env", "device", "mode", "cpu", "fstype"};
        for (int l = 0; l < names.length; l++) {
            pairs[2 * l] = names[l];
            pairs[2 * l + 1] = names[l] + "-" + (series * 7 + l) % (l < 5 ? 5 : 97);
        }
        return pairs;
    }

    private static double value(Random random, int series) {
        return series % 2 == 0 ? random.nextInt(1_000_000) : random.nextDouble() * 1e6;
    }

    @Test
    void influxDecodingAllocatesLessThanOneBytePerSample() throws PayloadException {
        Random random = new Random(SEED);
        StringBuilder text = new StringBuilder();
        for (int s = 0; s < SERIES; s++) {
            String[] pairs = labels(s);
            StringBuilder head = new StringBuilder("node_metric_" + s % 50);
            for (int l = 0; l < pairs.length; l += 2) {
                head.append(',').append(pairs[l]).append('=').append(pairs[l + 1].replace("-", "\\ "));
            }
            for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                text.append(head).append(" value=").append(value(random, s)).append(",count=").append(i).append("i ")
                        .append((START_MS + i * 15_000L) * 1_000_000 + s).append('\n');
            }
        }
        List<byte[]> records = List.of(text.toString().getBytes(StandardCharsets.UTF_8));
        long allocated = allocatedDecoding(PayloadFormat.INFLUX.newDecoder(DecoderLimits.DEFAULTS), records, MEASURED_SAMPLES);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    @Test
    void jsonDecodingAllocatesLessThanOneBytePerSample() throws PayloadException {
        Random random = new Random(SEED);
        List<byte[]> records = new ArrayList<>();
        for (int s = 0; s < SERIES; s++) {
            String[] pairs = labels(s);
            StringBuilder labels = new StringBuilder("{\"__name__\":\"node_metric_" + s % 50 + "\"");
            for (int l = 0; l < pairs.length; l += 2) {
                labels.append(",\"").append(pairs[l]).append("\":\"").append(pairs[l + 1]).append(l == 2 ? "\\u00e9" : "").append('"');
            }
            labels.append('}');
            records.add(("{\"labels\":" + labels + ",\"name\":\"node_metric_" + s % 50 + "\",\"timestamp\":\"2025-11-22T08:26:4"
                    + s % 10 + "." + s % 1000 + "Z\",\"value\":\"" + value(random, s) + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        long allocated = allocatedDecoding(PayloadFormat.JSON.newDecoder(DecoderLimits.DEFAULTS), records, MEASURED_SAMPLES);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    @Test
    void remoteWrite2DecodingAllocatesLessThanOneBytePerSample() throws PayloadException {
        Random random = new Random(SEED);
        Map<String, Integer> symbols = new LinkedHashMap<>();
        symbols.put("", 0);
        RemoteWriteV2.Request.Builder request = RemoteWriteV2.Request.newBuilder();
        for (int s = 0; s < SERIES; s++) {
            RemoteWriteV2.TimeSeries.Builder series = request.addTimeseriesBuilder();
            String[] pairs = labels(s);
            series.addLabelsRefs(symbols.computeIfAbsent("__name__", k -> symbols.size()))
                    .addLabelsRefs(symbols.computeIfAbsent("node_metric_" + s % 50, k -> symbols.size()));
            for (String text : pairs) {
                series.addLabelsRefs(symbols.computeIfAbsent(text, k -> symbols.size()));
            }
            for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                series.addSamples(RemoteWriteV2.Sample.newBuilder().setValue(value(random, s)).setTimestamp(START_MS + i * 15_000L));
            }
            series.getMetadataBuilder().setType(RemoteWriteV2.Metadata.MetricType.METRIC_TYPE_GAUGE);
        }
        byte[] uncompressed = request.addAllSymbols(symbols.keySet()).build().toByteArray();
        SnappyJavaCompressor snappy = new SnappyJavaCompressor();
        byte[] compressed = new byte[snappy.maxCompressedLength(uncompressed.length)];
        int length = snappy.compress(uncompressed, 0, uncompressed.length, compressed, 0, compressed.length);
        List<byte[]> records = List.of(Arrays.copyOf(compressed, length));
        long allocated = allocatedDecoding(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2.newDecoder(DecoderLimits.DEFAULTS), records,
                MEASURED_SAMPLES);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    @Test
    void otlpDecodingAllocatesLessThanOneBytePerSample() throws PayloadException {
        List<byte[]> records = List.of(otlpRecord(new Random(SEED)));
        long allocated = allocatedDecoding(PayloadFormat.OTLP.newDecoder(DecoderLimits.DEFAULTS), records, MEASURED_SAMPLES);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    /** A Collector-like request: gauges, counters and histograms with attributes, a resource and a scope. */
    static byte[] otlpRecord(Random random) {
        OtlpMetrics.ScopeMetrics.Builder scope = OtlpMetrics.ScopeMetrics.newBuilder()
                .setScope(OtlpMetrics.InstrumentationScope.newBuilder().setName("io.opentelemetry.runtime").setVersion("2.1.0"));
        for (int m = 0; m < 40; m++) {
            OtlpMetrics.Metric.Builder metric = scope.addMetricsBuilder().setName("app.metric." + m).setUnit(m % 2 == 0 ? "s" : "By");
            if (m % 10 == 9) {
                OtlpMetrics.Histogram.Builder histogram = metric.getHistogramBuilder()
                        .setAggregationTemporality(OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
                for (int p = 0; p < 20; p++) {
                    histogram.addDataPoints(OtlpMetrics.HistogramDataPoint.newBuilder().setTimeUnixNano(START_MS * 1_000_000)
                            .addAllAttributes(attributes(p)).setCount(100).setSum(random.nextDouble() * 100)
                            .addAllExplicitBounds(List.of(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
                            .addAllBucketCounts(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 20L, 25L)));
                }
            } else {
                OtlpMetrics.Sum.Builder sum = metric.getSumBuilder().setIsMonotonic(m % 3 == 0)
                        .setAggregationTemporality(OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
                for (int p = 0; p < 25; p++) {
                    sum.addDataPoints(OtlpMetrics.NumberDataPoint.newBuilder().setTimeUnixNano((START_MS + p) * 1_000_000)
                            .addAllAttributes(attributes(p)).setAsDouble(random.nextDouble() * 1e6));
                }
            }
        }
        return OtlpMetrics.ExportMetricsServiceRequest.newBuilder().addResourceMetrics(OtlpMetrics.ResourceMetrics.newBuilder()
                .setResource(OtlpMetrics.Resource.newBuilder()
                        .addAttributes(kv("service.name", "checkout")).addAttributes(kv("service.namespace", "shop"))
                        .addAttributes(kv("service.instance.id", "pod-1")).addAttributes(kv("host.name", "node-7"))
                        .addAttributes(kv("k8s.pod.uid", "0f0e-11")))
                .addScopeMetrics(scope)).build().toByteArray();
    }

    private static List<OtlpMetrics.KeyValue> attributes(int point) {
        return List.of(kv("http.method", point % 2 == 0 ? "GET" : "POST"), kv("http.route", "/api/v" + point % 3 + "/items"),
                kv("http.status_code", Integer.toString(200 + point % 5)), kv("net.host.name", "api.example.com"),
                kv("point", "p" + point));
    }

    private static OtlpMetrics.KeyValue kv(String key, String value) {
        return OtlpMetrics.KeyValue.newBuilder().setKey(key).setValue(OtlpMetrics.AnyValue.newBuilder().setStringValue(value)).build();
    }
}
