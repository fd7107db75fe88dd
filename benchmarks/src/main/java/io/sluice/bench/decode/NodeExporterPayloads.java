package io.sluice.bench.decode;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One record's worth of node-exporter-like data, as Prometheus batches it for remote-write: 1,000
 * series of 10 labels ({@code __name__}, job, instance, cluster, region, env and four family-specific
 * ones), with 1 to 10 samples each ({@code 1 + series % 10}, so exactly {@value #SAMPLES} samples),
 * 15 s apart. The same data is written in every format, so their figures compare.
 */
public final class NodeExporterPayloads {
    public static final int SERIES = 1000;
    public static final int LABELS = 10;
    public static final int SAMPLES = 5500;
    public static final long START_MS = 1_763_800_000_000L;
    public static final long SCRAPE_INTERVAL_MS = 15_000;
    /** The scope of {@link #otlp()}, which becomes otel_scope_name and otel_scope_version labels. */
    public static final String OTLP_SCOPE_NAME = "node-exporter-bridge";
    public static final String OTLP_SCOPE_VERSION = "1.0";

    private static final String[][] FAMILIES = {
        {"node_cpu_seconds_total", "cpu", "mode", "core", "package"},
        {"node_filesystem_avail_bytes", "device", "fstype", "mountpoint", "readonly"},
        {"node_network_receive_bytes_total", "device", "duplex", "operstate", "address"},
        {"node_disk_io_time_seconds_total", "device", "major", "minor", "model"},
        {"node_memory_MemAvailable_bytes", "numa_node", "zone", "kind", "tier"},
    };

    private final String[][] labels = new String[SERIES][];
    private final long[][] timestampsMs = new long[SERIES][];
    private final double[][] values = new double[SERIES][];

    /** The data is a function of the seed alone. */
    public NodeExporterPayloads(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int s = 0; s < SERIES; s++) {
            String[] family = FAMILIES[s % FAMILIES.length];
            int host = s / 50;
            labels[s] = new String[] {
                "__name__", family[0],
                "job", "node",
                "instance", "10.0." + host / 256 + "." + host % 256 + ":9100",
                "cluster", "prod-eu-" + host % 3,
                "region", "eu-west-1",
                "env", "production",
                family[1], family[1] + "-" + s % 50 / 5,
                family[2], family[2] + "-" + s % 5,
                family[3], "v" + random.nextInt(4),
                family[4], "x" + random.nextInt(2),
            };
            int n = 1 + s % 10;
            timestampsMs[s] = new long[n];
            values[s] = new double[n];
            double value = random.nextDouble() * 1e6;
            for (int i = 0; i < n; i++) {
                timestampsMs[s][i] = START_MS + i * SCRAPE_INTERVAL_MS + host % 1000;
                value += s % 2 == 0 ? random.nextDouble() * 100 : random.nextDouble() * 1e3 - 500;
                values[s][i] = value;
            }
        }
    }

    /** The record value as Prometheus would send it: snappy-compressed remote-write 1.0. */
    public byte[] remoteWrite() {
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(1 << 20);
        for (int s = 0; s < SERIES; s++) {
            encoder.beginSeries();
            for (int l = 0; l < labels[s].length; l += 2) {
                encoder.label(utf8(labels[s][l]), utf8(labels[s][l + 1]));
            }
            for (int i = 0; i < timestampsMs[s].length; i++) {
                encoder.sample(timestampsMs[s][i], values[s][i]);
            }
            encoder.endSeries();
        }
        int length = encoder.finish();
        return Arrays.copyOf(encoder.compressed(), length);
    }

    /** The record value as a native batch. */
    public byte[] nativeBatch(boolean timestampDeltas, boolean crc32c) {
        NativeBatchEncoder encoder = new NativeBatchEncoder(1 << 20, timestampDeltas, crc32c);
        encoder.reset(START_MS);
        for (int s = 0; s < SERIES; s++) {
            encoder.beginSeries(CanonicalLabels.encode(labels[s]));
            for (int i = 0; i < timestampsMs[s].length; i++) {
                encoder.sample(timestampsMs[s][i], values[s][i]);
            }
            encoder.endSeries();
        }
        int length = encoder.finish();
        return Arrays.copyOf(encoder.buffer(), length);
    }

    /**
     * The record as Telegraf's Kafka output would write it: one line a sample, the metric name as the
     * measurement and {@code value} as the field (so the series is named {@code <name>_value}), the other
     * labels as tags sorted by key (as Telegraf keeps them), nanosecond timestamps, values in Java's
     * shortest form (which reads back exactly).
     */
    public byte[] influx() {
        StringBuilder text = new StringBuilder();
        for (int s = 0; s < SERIES; s++) {
            StringBuilder head = new StringBuilder(labels[s][1]);
            Map<String, String> tags = new TreeMap<>();
            for (int l = 2; l < labels[s].length; l += 2) {
                tags.put(labels[s][l], labels[s][l + 1]);
            }
            tags.forEach((key, value) -> head.append(',').append(key).append('=').append(value));
            for (int i = 0; i < timestampsMs[s].length; i++) {
                text.append(head).append(" value=").append(values[s][i]).append(' ').append(timestampsMs[s][i] * 1_000_000).append('\n');
            }
        }
        return utf8(text.toString());
    }

    /** One record a sample, as prometheus-kafka-adapter writes them (Go's member order, RFC 3339 time). */
    public byte[][] json() {
        byte[][] records = new byte[SAMPLES][];
        int r = 0;
        for (int s = 0; s < SERIES; s++) {
            StringBuilder labelsJson = new StringBuilder("{");
            for (int l = 0; l < labels[s].length; l += 2) {
                labelsJson.append(l == 0 ? "" : ",").append('"').append(labels[s][l]).append("\":\"").append(labels[s][l + 1]).append('"');
            }
            labelsJson.append('}');
            for (int i = 0; i < timestampsMs[s].length; i++) {
                String value = new BigDecimal(Double.toString(values[s][i])).stripTrailingZeros().toPlainString();
                records[r++] = utf8("{\"labels\":" + labelsJson + ",\"name\":\"" + labels[s][1] + "\",\"timestamp\":\""
                        + Instant.ofEpochMilli(timestampsMs[s][i]) + "\",\"value\":\"" + value + "\"}");
            }
        }
        return records;
    }

    /** The record as Prometheus sends remote-write 2.0: a symbols table, series of label references. */
    public byte[] remoteWriteV2() {
        Map<String, Integer> symbols = new LinkedHashMap<>();
        symbols.put("", 0);
        ProtoBuilder request = new ProtoBuilder();
        ProtoBuilder[] series = new ProtoBuilder[SERIES];
        for (int s = 0; s < SERIES; s++) {
            int[] refs = new int[labels[s].length];
            for (int l = 0; l < refs.length; l++) {
                refs[l] = symbols.computeIfAbsent(labels[s][l], k -> symbols.size());
            }
            series[s] = new ProtoBuilder().packed(1, refs);
            for (int i = 0; i < timestampsMs[s].length; i++) {
                series[s].message(2, new ProtoBuilder().float64(1, values[s][i]).varint(2, timestampsMs[s][i]));
            }
            series[s].message(5, new ProtoBuilder().varint(1, 2)); // Metadata { type: GAUGE }
        }
        for (String symbol : symbols.keySet()) {
            request.string(4, symbol);
        }
        for (ProtoBuilder s : series) {
            request.message(5, s);
        }
        return snappy(request.toByteArray());
    }

    /**
     * The record as the OpenTelemetry Collector's Kafka exporter writes it (otlp_proto): one gauge per
     * metric family, one point a sample with the series' other labels as attributes.
     */
    public byte[] otlp() {
        Map<String, ProtoBuilder> gauges = new LinkedHashMap<>();
        for (int s = 0; s < SERIES; s++) {
            ProtoBuilder gauge = gauges.computeIfAbsent(labels[s][1], k -> new ProtoBuilder());
            for (int i = 0; i < timestampsMs[s].length; i++) {
                ProtoBuilder point = new ProtoBuilder().fixed64(3, timestampsMs[s][i] * 1_000_000).float64(4, values[s][i]);
                for (int l = 2; l < labels[s].length; l += 2) {
                    point.message(7, new ProtoBuilder().string(1, labels[s][l]).message(2, new ProtoBuilder().string(1, labels[s][l + 1])));
                }
                gauge.message(1, point);
            }
        }
        ProtoBuilder scope = new ProtoBuilder().message(1, new ProtoBuilder().string(1, OTLP_SCOPE_NAME).string(2, OTLP_SCOPE_VERSION));
        gauges.forEach((name, gauge) -> scope.message(2, new ProtoBuilder().string(1, name).message(5, gauge)));
        return new ProtoBuilder().message(1, new ProtoBuilder().message(2, scope)).toByteArray();
    }

    /** What {@link DecodeCountingSink#sampleChecksum()} must read after one record, in series order. */
    public long sampleChecksum() {
        long checksum = 0;
        for (int s = 0; s < SERIES; s++) {
            checksum = fold(checksum, s);
        }
        return checksum;
    }

    /** The checksum of {@link #otlp()}, whose samples come family by family (one gauge each), then in series order. */
    public long sampleChecksumByFamily() {
        long checksum = 0;
        for (int f = 0; f < FAMILIES.length; f++) {
            for (int s = f; s < SERIES; s += FAMILIES.length) {
                checksum = fold(checksum, s);
            }
        }
        return checksum;
    }

    private long fold(long checksum, int series) {
        for (int i = 0; i < timestampsMs[series].length; i++) {
            checksum = DecodeCountingSink.fold(checksum, timestampsMs[series][i], values[series][i]);
        }
        return checksum;
    }

    /** The total length of every series' canonical labels (what a native batch hands over). */
    public long canonicalLabelBytes() {
        long total = 0;
        for (String[] pairs : labels) {
            total += CanonicalLabels.encode(pairs).length;
        }
        return total;
    }

    /** The total length of every label name and value (what remote-write hands over). */
    public long labelBytes() {
        long total = 0;
        for (String[] pairs : labels) {
            for (String text : pairs) {
                total += utf8(text).length;
            }
        }
        return total;
    }

    /**
     * Label bytes handed over when every sample repeats its series' labels plus {@code extraBytes} (a
     * longer name, the scope's labels).
     */
    public long labelBytesPerSample(int extraBytes) {
        long total = 0;
        for (int s = 0; s < SERIES; s++) {
            long perSeries = extraBytes;
            for (String text : labels[s]) {
                perSeries += utf8(text).length;
            }
            total += perSeries * timestampsMs[s].length;
        }
        return total;
    }

    private static byte[] snappy(byte[] uncompressed) {
        SnappyJavaCompressor compressor = new SnappyJavaCompressor();
        byte[] out = new byte[compressor.maxCompressedLength(uncompressed.length)];
        return Arrays.copyOf(out, compressor.compress(uncompressed, 0, uncompressed.length, out, 0, out.length));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
