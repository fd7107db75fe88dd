package io.sluice.core.labels;

/**
 * What a deployment accepts in one label set, within the format maxima of {@link CanonicalLabels}.
 * Breaking a limit is bad input: the series is rejected with a {@link LabelsStatus}, counted, and
 * ingestion goes on. The limits guard memory; the per-shard series limit guards cardinality.
 *
 * @param maxLabels         labels with non-empty values, 1..{@value CanonicalLabels#MAX_LABELS}
 * @param maxNameBytes      UTF-8 bytes of a name, 1..{@value CanonicalLabels#MAX_NAME_BYTES}
 * @param maxValueBytes     UTF-8 bytes of a value, 1..{@value CanonicalLabels#MAX_VALUE_BYTES}
 * @param requireMetricName whether a set without {@code __name__} is rejected. Prometheus' TSDB
 *                          stores such sets, but remote-write 1.0 requires the name and every
 *                          input format Sluice reads yields one, so a set without it is a broken
 *                          producer: rejected by default.
 */
public record LabelLimits(int maxLabels, int maxNameBytes, int maxValueBytes, boolean requireMetricName) {
    /**
     * 128 labels, 1 KiB names, 16 KiB values, metric name required: generous next to Mimir's
     * defaults (30 labels, 1 KiB names, 2 KiB values) because a rejected series is lost data, and
     * still at most about 2.2 MB of canonical bytes per set.
     */
    public static final LabelLimits DEFAULT = new LabelLimits(128, 1024, 16 * 1024, true);

    public LabelLimits {
        check("maxLabels", maxLabels, CanonicalLabels.MAX_LABELS);
        check("maxNameBytes", maxNameBytes, CanonicalLabels.MAX_NAME_BYTES);
        check("maxValueBytes", maxValueBytes, CanonicalLabels.MAX_VALUE_BYTES);
    }

    /** The largest canonical encoding these limits admit, in bytes. */
    public int maxCanonicalBytes() {
        return maxLabels * (CanonicalLabels.uvarintLength(maxNameBytes) + maxNameBytes
                + CanonicalLabels.uvarintLength(maxValueBytes) + maxValueBytes);
    }

    private static void check(String what, int value, int formatMax) {
        if (value < 1 || value > formatMax) {
            throw new IllegalArgumentException(what + " must be 1.." + formatMax + ", was " + value);
        }
    }
}
