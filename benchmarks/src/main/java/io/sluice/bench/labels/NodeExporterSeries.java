package io.sluice.bench.labels;

import io.sluice.core.index.Postings;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.labels.SymbolTable;
import java.nio.charset.StandardCharsets;

/**
 * Realistic label sets for the labels benchmarks: node_exporter-like series of 10 labels (about
 * 200 canonical bytes), 100 per instance. Series {@code s} belongs to instance {@code s / 100};
 * of its 100 series, 10 are {@code node_cpu_seconds_total{cpu="0".."9"}}, one is
 * {@code node_boot_time_seconds} and 89 are {@code node_metric_NN}. Out of 100,000 series that is
 * 10,000 CPU series and one boot-time series per instance.
 *
 * <p>Names and values are pre-made UTF-8 byte arrays, so the benchmarks measure the index, not
 * string encoding.
 */
public final class NodeExporterSeries {
    public static final int LABELS = 10;
    public static final int SERIES_PER_INSTANCE = 100;
    public static final String CPU_METRIC = "node_cpu_seconds_total";
    public static final String BOOT_METRIC = "node_boot_time_seconds";

    private static final String[] NAMES = {
        "__name__", "instance", "job", "env", "region", "zone", "cluster", "team", "os", "cpu"};
    private static final String COLLECTOR = "collector";

    private final int instances;
    private final byte[][] names = new byte[LABELS + 1][];
    private final byte[][] metricNames = new byte[SERIES_PER_INSTANCE][];
    private final byte[][] instanceNames;
    private final byte[][] constants = new byte[LABELS][]; // job, env, region, team, os by label index
    private final byte[][] zones = new byte[3][];
    private final byte[][] clusters = new byte[10][];
    private final byte[][] extras = new byte[SERIES_PER_INSTANCE][]; // cpu or collector value

    public NodeExporterSeries(int instances) {
        this.instances = instances;
        for (int i = 0; i < LABELS; i++) {
            names[i] = utf8(NAMES[i]);
        }
        names[LABELS] = utf8(COLLECTOR);
        for (int k = 0; k < SERIES_PER_INSTANCE; k++) {
            metricNames[k] = utf8(k < 10 ? CPU_METRIC : k == 10 ? BOOT_METRIC : String.format("node_metric_%02d", k));
            extras[k] = utf8(k < 10 ? Integer.toString(k) : k == 10 ? "stat" : "c" + k % 8);
        }
        instanceNames = new byte[instances][];
        for (int i = 0; i < instances; i++) {
            instanceNames[i] = utf8(instance(i));
        }
        constants[2] = utf8("node");
        constants[3] = utf8("production");
        constants[4] = utf8("eu-west-1");
        constants[7] = utf8("platform-infrastructure");
        constants[8] = utf8("linux");
        for (int z = 0; z < zones.length; z++) {
            zones[z] = utf8("eu-west-1" + (char) ('a' + z));
        }
        for (int c = 0; c < clusters.length; c++) {
            clusters[c] = utf8("cluster-" + c);
        }
    }

    /** The {@code instance} label value of instance {@code i}. */
    public static String instance(int i) {
        return String.format("ip-10-0-%d-%d.eu-west-1.compute.internal:9100", i / 250, i % 250);
    }

    public int seriesCount() {
        return instances * SERIES_PER_INSTANCE;
    }

    /** Name of label {@code label} (0..9) of series {@code s}: the tenth is cpu or collector. */
    public byte[] name(int s, int label) {
        return label == LABELS - 1 && s % SERIES_PER_INSTANCE >= 10 ? names[LABELS] : names[label];
    }

    /** Value of label {@code label} (0..9) of series {@code s}. */
    public byte[] value(int s, int label) {
        int instance = s / SERIES_PER_INSTANCE;
        int k = s % SERIES_PER_INSTANCE;
        return switch (label) {
            case 0 -> metricNames[k];
            case 1 -> instanceNames[instance];
            case 5 -> zones[instance % zones.length];
            case 6 -> clusters[instance % clusters.length];
            case LABELS - 1 -> extras[k];
            default -> constants[label];
        };
    }

    /** Adds series {@code s}'s labels to {@code builder} in a scrambled order and builds it. */
    public LabelsStatus build(int s, LabelsBuilder builder) {
        builder.reset();
        for (int i = 0; i < LABELS; i++) {
            int label = (i * 7 + 3) % LABELS; // not sorted: the builder must sort
            byte[] n = name(s, label);
            byte[] v = value(s, label);
            builder.add(n, 0, n.length, v, 0, v.length);
        }
        return builder.build();
    }

    /**
     * Creates series {@code s} in a shard's index as the registry does: interns its names and
     * values, then indexes the ids. {@code nameIds} and {@code valueIds} are scratch of length 10.
     */
    public void index(int s, SymbolTable symbols, Postings postings, int[] nameIds, int[] valueIds) {
        for (int label = 0; label < LABELS; label++) {
            byte[] n = name(s, label);
            byte[] v = value(s, label);
            nameIds[label] = symbols.intern(n, 0, n.length);
            valueIds[label] = symbols.intern(v, 0, v.length);
        }
        postings.add(s, nameIds, valueIds, LABELS);
    }

    /** A canonical encoding of series {@code s} (allocates; for setup). */
    public byte[] canonical(int s) {
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        if (build(s, builder) != LabelsStatus.OK) {
            throw new IllegalStateException("series " + s);
        }
        return java.util.Arrays.copyOf(builder.bytes(), builder.length());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
