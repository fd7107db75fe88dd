package io.sluice.bench.e2e;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.tools.loadgen.NodeExporterModel;
import java.util.Arrays;

/**
 * The active series: {@code size} slots, each with the canonical labels of a node-exporter-like series
 * (the load generator's model) plus {@code generation="g"}. Churn moves a slot to the next generation,
 * which makes it a new series for the head (the old one stays in memory, inactive, as in Prometheus'
 * head until compaction). Owned by the producer thread.
 */
final class SeriesPopulation {
    private final NodeExporterModel model;
    private final byte[][] labels;
    private final int[] generation;
    private final boolean[] unsent;          // churned, new labels not produced yet
    private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();
    private int nextChurn;
    private long created;

    SeriesPopulation(int size) {
        model = new NodeExporterModel(size, 42, 0, 15_000);
        labels = new byte[size][];
        generation = new int[size];
        unsent = new boolean[size];
        for (int s = 0; s < size; s++) {
            labels[s] = build(s);
        }
        created = size;
    }

    int size() {
        return labels.length;
    }

    byte[] labels(int slot) {
        return labels[slot];
    }

    double value(int slot, long round) {
        return model.value(slot, round);
    }

    /** Replaces the next {@code n} slots (round robin) by new series. */
    void churn(int n) {
        for (int i = 0; i < n; i++) {
            int s = nextChurn;
            nextChurn = (nextChurn + 1) % labels.length;
            generation[s]++;
            labels[s] = build(s);
            unsent[s] = true; // counted when produced: a generation churned away unsent never reaches the head
        }
    }

    /** The producer sent a sample of {@code slot}. */
    void sent(int slot) {
        if (unsent[slot]) {
            unsent[slot] = false;
            created++;
        }
    }

    /** Distinct series produced so far (initial plus churned ones whose new labels were produced). */
    long seriesCreated() {
        return created;
    }

    private byte[] build(int s) {
        builder.reset();
        model.labels(s, (n, v) -> builder.add(n, 0, n.length, v, 0, v.length));
        builder.add("generation", Integer.toString(generation[s]));
        LabelsStatus status = builder.build();
        if (status != LabelsStatus.OK) {
            throw new IllegalStateException("series " + s + ": " + status);
        }
        return Arrays.copyOf(builder.bytes(), builder.length());
    }
}
