package io.sluice.tools.bench;

import io.sluice.core.labels.LabelsBuilder;
import java.util.SplittableRandom;

/**
 * The series and samples of the replay benchmark, shaped like the Prometheus anchor harness
 * that benchmarks/replay-vs-prometheus.sh runs beside it, so the two WALs hold comparable data: series {@code i} is a
 * node_exporter filesystem gauge with 10 labels (host {@code i / 10}, device {@code i % 10}); scrape
 * {@code r} of every series is at {@code START_MS + r * 15 s}; values are
 * {@code round2(base + 5 sin(2 pi dt / 6 h + phase) + N(0, 0.05))} with {@code base = 20 + i % 70}.
 *
 * <p>Deterministic: each series draws its phase and noise from its own generator seeded {@code i + 1},
 * so {@link #value} must be called for scrapes 0, 1, 2, ... of a series in order. Labels and hashes
 * are built once; {@link #value} allocates nothing. Single-threaded.
 */
public final class GaugeWorkload extends LabelledWorkload {
    /** 15 s, as the harness. */
    public static final long SCRAPE_INTERVAL_MS = 15_000;
    /** The harness' t0 (2024-01-01T00:00:00Z). */
    public static final long START_MS = 1_704_067_200_000L;
    private static final double PERIOD_MS = 6 * 3600 * 1000.0;
    private static final String[] MOUNTS = {"/", "/boot", "/home", "/var", "/var/log", "/tmp", "/data", "/data1", "/data2", "/srv"};
    private static final String[] ENVS = {"prod", "staging", "dev"};
    private static final String[] REGIONS = {"eu-west-1", "us-east-1", "ap-south-1", "us-west-2"};
    private static final String[] TEAMS = {"storage", "compute", "network", "platform", "data"};

    private final double[] bases;
    private final double[] phases;
    private final SplittableRandom[] noise;

    public GaugeWorkload(int series) {
        if (series < 1) {
            throw new IllegalArgumentException("series must be at least 1, was " + series);
        }
        super(series, GaugeWorkload::addLabels);
        bases = new double[series];
        phases = new double[series];
        noise = new SplittableRandom[series];
        for (int i = 0; i < series; i++) {
            noise[i] = new SplittableRandom(i + 1L);
            bases[i] = 20 + i % 70;
            phases[i] = noise[i].nextDouble() * 2 * Math.PI;
        }
    }

    private static void addLabels(LabelsBuilder b, int i) {
        int host = i / 10;
        int dev = i % 10;
        b.add("__name__", "node_filesystem_avail_percent")
                .add("instance", String.format("host-%04d.dc1.example.internal:9100", host))
                .add("job", "node")
                .add("device", "/dev/nvme" + dev / 4 + "n1p" + (dev % 4 + 1))
                .add("fstype", dev % 2 == 0 ? "ext4" : "xfs")
                .add("mountpoint", MOUNTS[dev])
                .add("env", ENVS[host % 3])
                .add("region", REGIONS[host % 4])
                .add("cluster", String.format("k8s-%02d", host % 25))
                .add("team", TEAMS[host % 5]);
    }

    public static long timestampMs(long scrape) {
        return START_MS + scrape * SCRAPE_INTERVAL_MS;
    }

    @Override
    public long scrapeTimeMs(long round) {
        return timestampMs(round);
    }

    /** The value of series {@code i} at scrape {@code scrape}; call in scrape order per series. */
    @Override
    public double value(int i, long scrape) {
        double x = bases[i] + 5 * Math.sin(2 * Math.PI * (scrape * SCRAPE_INTERVAL_MS) / PERIOD_MS + phases[i])
                + 0.05 * noise[i].nextGaussian();
        return Math.round(x * 100) / 100.0;
    }
}
