package io.sluice.server.format.otlp;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes {@code otlp} records: an OTLP {@code ExportMetricsServiceRequest} in protobuf, as the
 * OpenTelemetry Collector's Kafka exporter writes it with {@code encoding: otlp_proto} (uncompressed:
 * Kafka compresses batches itself), mapped to Prometheus series by the OpenTelemetry "Prometheus and
 * OpenMetrics Compatibility" specification; docs/format/otlp.md has the mapping.
 *
 * <p>A malformed request (protobuf structure, a histogram whose bucket counts do not fit its bounds)
 * rejects the whole record. A metric that cannot be stored faithfully (delta temporality, exponential
 * histogram, ...) is skipped and counted by {@link OtlpSkip}, and the rest of the record is kept.
 * Counters only grow for records that decoded.
 *
 * <p>Memory: arenas for label text and arrays for bounds, quantiles and labels, grown to the largest
 * resource, scope and point seen; a cache of up to 1,536 number texts (bucket bounds, quantiles).
 * Nothing is allocated per point or sample once they have grown. Not thread-safe: one instance per
 * consumer thread, which owns every field.
 */
public final class OtlpDecoder implements PayloadDecoder {
    /**
     * The {@code sluice_decode_skipped_total} reasons: {@code metric_<reason>} for each {@link OtlpSkip}
     * (a whole metric skipped), then {@code point_without_value}, {@code exemplar} and
     * {@code attribute_key_dropped}.
     */
    public static final List<String> SKIP_REASONS = skipReasons();
    private static final int POINT_WITHOUT_VALUE = OtlpSkip.values().length;
    private static final int EXEMPLAR = POINT_WITHOUT_VALUE + 1;

    private final DecoderLimits limits;
    private final WireReader record = new WireReader();
    private final OtlpRequestReader reader = new OtlpRequestReader();

    private final long[] metricsSkipped = new long[OtlpSkip.values().length];
    private long pointsWithoutValueTotal;
    private long exemplarsSkippedTotal;
    private long attributeKeysDroppedTotal;

    public OtlpDecoder(DecoderLimits limits) {
        this.limits = limits;
    }

    @Override
    public void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        record.wrapRecord(value, off, len, limits);
        reader.read(record, sink);
        for (int i = 0; i < metricsSkipped.length; i++) {
            metricsSkipped[i] += reader.metricsSkipped[i];
        }
        pointsWithoutValueTotal += reader.pointsWithoutValue();
        exemplarsSkippedTotal += reader.exemplarsSkipped();
        attributeKeysDroppedTotal += reader.attributeKeysDropped();
    }

    /** What the last decoded record skipped; valid after decode() returned normally. */
    @Override
    public long skippedInLastRecord(int reason) {
        if (reason < POINT_WITHOUT_VALUE) {
            return reader.metricsSkipped[reason];
        }
        return reason == POINT_WITHOUT_VALUE ? reader.pointsWithoutValue()
                : reason == EXEMPLAR ? reader.exemplarsSkipped() : reader.attributeKeysDropped();
    }

    private static List<String> skipReasons() {
        List<String> reasons = new ArrayList<>();
        for (OtlpSkip skip : OtlpSkip.values()) {
            reasons.add("metric_" + skip.label());
        }
        reasons.addAll(List.of("point_without_value", "exemplar", "attribute_key_dropped"));
        return List.copyOf(reasons);
    }

    /** Metrics skipped for {@code reason} in records that decoded, since this decoder was created. */
    public long metricsSkippedTotal(OtlpSkip reason) {
        return metricsSkipped[reason.ordinal()];
    }

    /** Number points with neither a value nor the NO_RECORDED_VALUE flag: nothing to store. */
    public long pointsWithoutValueTotal() {
        return pointsWithoutValueTotal;
    }

    /** Exemplars skipped (Sluice stores samples only). */
    public long exemplarsSkippedTotal() {
        return exemplarsSkippedTotal;
    }

    /** Attribute keys dropped because nothing of them makes a label name (empty, or only underscores). */
    public long attributeKeysDroppedTotal() {
        return attributeKeysDroppedTotal;
    }
}
