package io.sluice.server.format.nativebatch;

import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import java.util.Arrays;

/**
 * Sluice's canonical label encoding from name/value strings, for producers of native batches (the
 * load generator, tests) that prepare their series once. A convenience over ingest-core's
 * {@link LabelsBuilder}, which owns the encoding (docs/format/labels.md): sorted by unsigned UTF-8
 * name bytes, empty values dropped, {@code uvarint(nameLen) name uvarint(valueLen) value}. It allocates,
 * so it does not belong on a per-sample path; the head validates what it receives.
 */
public final class CanonicalLabels {
    /** The format's own maxima; no {@code __name__} required (the head's limits decide that). */
    private static final LabelLimits FORMAT_LIMITS = new LabelLimits(io.sluice.core.labels.CanonicalLabels.MAX_LABELS,
            io.sluice.core.labels.CanonicalLabels.MAX_NAME_BYTES, io.sluice.core.labels.CanonicalLabels.MAX_VALUE_BYTES, false);

    private CanonicalLabels() {
    }

    /** Canonical bytes of {@code name, value, name, value, ...}; a duplicate or unencodable label is an IllegalArgumentException. */
    public static byte[] encode(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must come in pairs, got " + namesAndValues.length);
        }
        LabelsBuilder builder = new LabelsBuilder(FORMAT_LIMITS);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        LabelsStatus status = builder.build();
        if (status == LabelsStatus.DUPLICATE_NAME) {
            throw new IllegalArgumentException("duplicate label name in " + String.join(",", namesAndValues));
        }
        if (status != LabelsStatus.OK) {
            throw new IllegalArgumentException("cannot encode labels (" + status + "): " + String.join(",", namesAndValues));
        }
        return Arrays.copyOf(builder.bytes(), builder.length());
    }
}
