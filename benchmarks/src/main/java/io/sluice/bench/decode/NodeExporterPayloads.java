package io.sluice.bench.decode;

import io.sluice.server.format.nativebatch.CanonicalLabels;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

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

    /** What {@link DecodeCountingSink#sampleChecksum()} must read after one record, whatever the format. */
    public long sampleChecksum() {
        long checksum = 0;
        for (int s = 0; s < SERIES; s++) {
            for (int i = 0; i < timestampsMs[s].length; i++) {
                checksum = DecodeCountingSink.fold(checksum, timestampsMs[s][i], values[s][i]);
            }
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

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
