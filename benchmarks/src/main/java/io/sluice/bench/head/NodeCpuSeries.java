package io.sluice.bench.head;

import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import java.util.Arrays;

/**
 * The head benchmarks' series: {@code node_cpu_seconds_total} with 10 labels (~200 canonical bytes),
 * series {@code s} has cpu {@code s % 16}, instance {@code host-(s / 32)}, service {@code svc-(s % 50)}
 * and so on, so selections of known size can be written down (5 of 50 services = a tenth).
 */
public final class NodeCpuSeries {
    /** Canonical label bytes per series. */
    public final byte[][] labels;
    /** Series hash per series. */
    public final long[] hashes;

    public NodeCpuSeries(int series) {
        labels = new byte[series][];
        hashes = new long[series];
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        for (int s = 0; s < series; s++) {
            builder.reset().add("__name__", "node_cpu_seconds_total").add("cpu", Integer.toString(s % 16))
                    .add("mode", s % 2 == 0 ? "user" : "system").add("instance", "host-" + (s / 32) + ".example.org:9100")
                    .add("job", "node").add("env", "prod").add("region", "eu-west-" + (s % 3))
                    .add("cluster", "c" + (s % 7)).add("team", "platform").add("service", "svc-" + (s % 50));
            builder.build();
            labels[s] = Arrays.copyOf(builder.bytes(), builder.length());
            hashes[s] = builder.hash();
        }
    }

    public int size() {
        return labels.length;
    }

    /** A realistic two-decimal gauge value of series {@code s} at round {@code r}, as raw bits. */
    public static long valueBits(int s, long r) {
        return Double.doubleToRawLongBits(Math.round((40 + s % 60 + 5 * Math.sin(r / 40.0 + s)) * 100) / 100.0);
    }
}
