package io.sluice.tools.bench;

import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import java.util.Arrays;
import java.util.function.ObjIntConsumer;

/**
 * A {@link RoundWorkload} whose series' canonical labels and hashes are built once, at construction,
 * from a function that adds series {@code i}'s labels to a builder.
 */
public abstract class LabelledWorkload implements RoundWorkload {
    private final byte[][] labels;
    private final long[] hashes;

    /** Builds the labels of series {@code 0..series-1}; throws if any is invalid. */
    protected LabelledWorkload(int series, ObjIntConsumer<LabelsBuilder> addLabels) {
        labels = new byte[series][];
        hashes = new long[series];
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        for (int i = 0; i < series; i++) {
            addLabels.accept(builder.reset(), i);
            if (builder.build() != LabelsStatus.OK) {
                throw new IllegalStateException("series " + i + " has invalid labels");
            }
            labels[i] = Arrays.copyOf(builder.bytes(), builder.length());
            hashes[i] = builder.hash();
        }
    }

    @Override
    public final int seriesCount() {
        return labels.length;
    }

    @Override
    public final byte[] labels(int i) {
        return labels[i];
    }

    @Override
    public final long hash(int i) {
        return hashes[i];
    }

    @Override
    public final int maxLabelsLength() {
        int max = 0;
        for (byte[] l : labels) {
            max = Math.max(max, l.length);
        }
        return max;
    }
}
