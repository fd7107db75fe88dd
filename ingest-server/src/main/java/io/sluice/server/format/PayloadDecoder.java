package io.sluice.server.format;

/**
 * Decodes one Kafka record value. One instance per consumer thread; reuses its buffers.
 *
 * <p>Implementations are not thread-safe and allocate nothing on the good path: after warm-up,
 * decoding a well-formed record allocates no bytes (guarded by allocation tests). Only a record
 * larger than any before may grow a reusable buffer, up to the configured {@link DecoderLimits}.
 */
public interface PayloadDecoder {
    /**
     * Decodes the whole value into the sink; throws PayloadException (with reason + byte position)
     * on malformed input. The caller rolls back whatever the sink got from this record.
     *
     * @param recordTimestampMs the Kafka record's timestamp, for formats whose samples may lack one;
     *     remote-write and sluice carry a timestamp on every sample and ignore it
     */
    void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException;

    /**
     * How many items the last {@link #decode} that returned normally skipped inside its record for reason
     * {@code reason} (an index into the format's {@link PayloadFormat#skipReasons()}): content that is
     * well-formed but not stored (an influx string field, an OTLP delta sum) or a part rejected on its own
     * (a bad influx line). Formats without such reasons have none. Allocates nothing.
     */
    default long skippedInLastRecord(int reason) {
        return 0;
    }
}
