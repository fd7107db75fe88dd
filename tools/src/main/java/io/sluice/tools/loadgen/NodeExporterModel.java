package io.sluice.tools.loadgen;

import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Node-exporter-like series and their samples as pure functions of (seed, series, scrape): what the
 * load generator produces and what a test expects back. Series {@code s} is series
 * {@code s % }{@value #SERIES_PER_INSTANCE} of instance {@code s / }{@value #SERIES_PER_INSTANCE}; each
 * instance has node_exporter's usual families — CPU seconds per cpu and mode, disk and network
 * counters per device, filesystem and memory gauges, load, and per-collector scrape durations —
 * labelled {@code __name__, instance, job="node", cluster} plus the family's own labels (5–7 labels,
 * ~150 canonical bytes).
 *
 * <p>Values: counters grow by a per-series rate with jitter (monotonic), gauges swing around a
 * per-series level, a few are constant. Timestamps: {@code startTimeMs + scrape * scrapeIntervalMs}
 * plus a fixed per-instance offset below one second, as scrapes of different targets are spread out.
 *
 * <p>Immutable and thread-safe; label bytes of the templates are shared, never copied per series.
 */
public final class NodeExporterModel {
    public static final int SERIES_PER_INSTANCE = 200;

    private static final byte[] NAME = utf8("__name__");
    private static final byte[] INSTANCE = utf8("instance");
    private static final byte[] JOB = utf8("job");
    private static final byte[] NODE = utf8("node");
    private static final byte[] CLUSTER = utf8("cluster");
    private static final Template[] TEMPLATES = Templates.build();
    private static final int CLUSTERS = 4;
    private static final byte[][] CLUSTER_VALUES = new byte[CLUSTERS][];

    static {
        for (int c = 0; c < CLUSTERS; c++) {
            CLUSTER_VALUES[c] = utf8("prod-eu-" + c);
        }
    }

    private final long seed;
    private final long startTimeMs;
    private final long scrapeIntervalMs;
    private final byte[][] instances; // instance label values, by instance

    /** How a series' value moves. */
    enum Kind { COUNTER, GAUGE, CONSTANT }

    /** One series of an instance: metric name, extra label pairs, value kind and scale. */
    record Template(byte[] name, byte[][] extraLabels, Kind kind, double scale) {
    }

    /** Receives a series' labels as UTF-8 byte ranges (whole arrays), in an unspecified order. */
    public interface LabelConsumer {
        void label(byte[] name, byte[] value);
    }

    public NodeExporterModel(int series, long seed, long startTimeMs, long scrapeIntervalMs) {
        if (series < 1) {
            throw new IllegalArgumentException("series must be at least 1, was " + series);
        }
        if (scrapeIntervalMs < 1) {
            throw new IllegalArgumentException("scrapeIntervalMs must be at least 1, was " + scrapeIntervalMs);
        }
        this.seed = seed;
        this.startTimeMs = startTimeMs;
        this.scrapeIntervalMs = scrapeIntervalMs;
        int instanceCount = (series + SERIES_PER_INSTANCE - 1) / SERIES_PER_INSTANCE;
        this.instances = new byte[instanceCount][];
        for (int i = 0; i < instanceCount; i++) {
            instances[i] = utf8(instanceName(i));
        }
    }

    /** The {@code instance} label of instance {@code i}: {@code 10.a.b.c:9100}. */
    public static String instanceName(int i) {
        return "10." + (i >>> 16 & 0xFF) + "." + (i >>> 8 & 0xFF) + "." + (i & 0xFF) + ":9100";
    }

    /** Hands series {@code s}'s labels to {@code out} (no allocation). */
    public void labels(int s, LabelConsumer out) {
        Template t = TEMPLATES[s % SERIES_PER_INSTANCE];
        int instance = s / SERIES_PER_INSTANCE;
        out.label(NAME, t.name);
        out.label(INSTANCE, instances[instance]);
        out.label(JOB, NODE);
        out.label(CLUSTER, CLUSTER_VALUES[instance % CLUSTERS]);
        for (int i = 0; i < t.extraLabels.length; i += 2) {
            out.label(t.extraLabels[i], t.extraLabels[i + 1]);
        }
    }

    /** Series {@code s}'s labels as name/value strings, for tests and messages (allocates). */
    public List<String> labelPairs(int s) {
        List<String> pairs = new ArrayList<>();
        labels(s, (n, v) -> {
            pairs.add(new String(n, StandardCharsets.UTF_8));
            pairs.add(new String(v, StandardCharsets.UTF_8));
        });
        return pairs;
    }

    /** Series {@code s}'s canonical label bytes (docs/format/labels.md); allocates. */
    public byte[] canonicalLabels(int s, LabelsBuilder builder) {
        builder.reset();
        labels(s, (n, v) -> builder.add(n, 0, n.length, v, 0, v.length));
        LabelsStatus status = builder.build();
        if (status != LabelsStatus.OK) {
            throw new IllegalStateException("series " + s + " has invalid labels: " + status);
        }
        return Arrays.copyOf(builder.bytes(), builder.length());
    }

    /** A builder whose limits admit every series of the model. */
    public static LabelsBuilder newLabelsBuilder() {
        return new LabelsBuilder(LabelLimits.DEFAULT);
    }

    public long timestampMs(int s, long scrape) {
        int instance = s / SERIES_PER_INSTANCE;
        long offsetMs = (instance * 7919L) % Math.min(1000, scrapeIntervalMs);
        return startTimeMs + scrape * scrapeIntervalMs + offsetMs;
    }

    public double value(int s, long scrape) {
        Template t = TEMPLATES[s % SERIES_PER_INSTANCE];
        long seriesBits = mix(seed ^ (s * 0x9E3779B97F4A7C15L));
        double level = t.scale * (0.5 + unit(seriesBits));
        return switch (t.kind) {
            case CONSTANT -> Math.rint(level);
            case GAUGE -> {
                double period = 20 + (seriesBits >>> 40) % 200;
                double wave = Math.sin(2 * Math.PI * scrape / period);
                yield level * (1 + 0.25 * wave + 0.05 * (unit(mix(seriesBits + scrape)) - 0.5));
            }
            case COUNTER -> {
                double ratePerScrape = t.scale * 1e-3 * (0.1 + unit(seriesBits >>> 7));
                // Monotonic: each scrape adds between 0.5 and 1.5 times the rate.
                yield Math.floor(level) + ratePerScrape * (scrape + unit(mix(seriesBits ^ scrape)) * 0.5);
            }
        };
    }

    long startTimeMs() {
        return startTimeMs;
    }

    /** splitmix64's finaliser: a good 64-bit mix, cheap and stateless. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Template table of one instance, {@value #SERIES_PER_INSTANCE} series. */
    static Template[] templates() {
        return TEMPLATES.clone();
    }
}
