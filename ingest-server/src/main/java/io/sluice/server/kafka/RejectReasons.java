package io.sluice.server.kafka;

import io.sluice.core.labels.LabelsStatus;
import io.sluice.server.format.PayloadException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code reason} label values of {@code sluice_records_rejected_total} and
 * {@code sluice_samples_rejected_total}: the decoders' {@link PayloadException.Reason} labels, one per
 * {@link LabelsStatus}, and two of the router's own. Stable across releases (dashboards use them).
 */
public final class RejectReasons {
    /** The record exceeds the record-size limit, or its samples for one shard exceed a whole shard batch. */
    public static final String TOO_LARGE = PayloadException.Reason.TOO_LARGE.label();
    /** The decoder failed with an unexpected exception (a bug, logged with its stack trace). */
    public static final String INTERNAL_ERROR = "internal_error";

    private static final Map<LabelsStatus, String> LABELS = new EnumMap<>(LabelsStatus.class);

    static {
        LABELS.put(LabelsStatus.EMPTY_NAME, "empty_label_name");
        LABELS.put(LabelsStatus.DUPLICATE_NAME, "duplicate_label_name");
        LABELS.put(LabelsStatus.INVALID_UTF8, "invalid_utf8");
        LABELS.put(LabelsStatus.TOO_MANY_LABELS, "too_many_labels");
        LABELS.put(LabelsStatus.NAME_TOO_LONG, "label_name_too_long");
        LABELS.put(LabelsStatus.VALUE_TOO_LONG, "label_value_too_long");
        LABELS.put(LabelsStatus.NO_METRIC_NAME, "missing_metric_name");
        LABELS.put(LabelsStatus.NOT_SORTED, "labels_not_sorted");
        LABELS.put(LabelsStatus.EMPTY_VALUE, "empty_label_value");
        LABELS.put(LabelsStatus.MALFORMED, "malformed_labels");
        LABELS.put(LabelsStatus.TOO_LONG, "labels_too_long");
    }

    private RejectReasons() {
    }

    /** The reason label of a label set that failed validation; {@code status} is not OK. */
    public static String of(LabelsStatus status) {
        String label = LABELS.get(status);
        if (label == null) {
            throw new IllegalArgumentException("not a rejection: " + status);
        }
        return label;
    }

    /** Every reason label, for pre-registering counters (a scrape shows zeros rather than nothing). */
    public static List<String> all() {
        List<String> all = new ArrayList<>();
        for (PayloadException.Reason r : PayloadException.Reason.values()) {
            all.add(r.label());
        }
        all.addAll(LABELS.values());
        all.add(INTERNAL_ERROR);
        return Collections.unmodifiableList(all);
    }
}
