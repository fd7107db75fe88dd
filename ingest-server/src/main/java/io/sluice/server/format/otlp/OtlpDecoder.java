package io.sluice.server.format.otlp;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;

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
