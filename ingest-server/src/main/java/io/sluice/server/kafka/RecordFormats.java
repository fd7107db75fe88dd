package io.sluice.server.kafka;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A consumer thread's decoders, one per payload format (made on first use), the per-record choice of
 * format, and the tallies of what the decoders skipped inside accepted records.
 *
 * <p>The format of a record is its topic's, except that a remote-write topic's record may name its
 * version in a {@value PayloadFormat#CONTENT_TYPE_HEADER} header ({@link PayloadFormat#forRecord}); the
 * header is looked up as {@code Content-Type} and {@code content-type} without allocating, other
 * spellings by iterating the headers (which may allocate an iterator, only for such records).
 *
 * <p>Owned by one consumer thread: every field is read and written by that thread only.
 */
final class RecordFormats {
    private static final String LOWER_CASE_HEADER = PayloadFormat.CONTENT_TYPE_HEADER.toLowerCase(java.util.Locale.ROOT);

    private final DecoderLimits limits;
    private final PayloadDecoder[] decoders = new PayloadDecoder[PayloadFormat.values().length];
    /** [format ordinal][skip reason index]: skipped since the last {@link #publish}. */
    private final long[][] skipped = new long[PayloadFormat.values().length][];

    RecordFormats(DecoderLimits limits) {
        this.limits = limits;
        for (PayloadFormat format : PayloadFormat.values()) {
            skipped[format.ordinal()] = new long[format.skipReasons().size()];
        }
    }

    /**
     * The format of one record of a topic configured with {@code topicFormat}.
     *
     * @throws PayloadException {@code unsupported_content_type} when a remote-write record's header names
     *     something else than a remote-write body
     */
    static PayloadFormat resolve(PayloadFormat topicFormat, Headers headers) throws PayloadException {
        if (!topicFormat.readsContentType()) {
            return topicFormat;
        }
        Header header = contentType(headers);
        return topicFormat.forRecord(header == null ? null : header.value());
    }

    private static Header contentType(Headers headers) {
        Header header = headers.lastHeader(PayloadFormat.CONTENT_TYPE_HEADER);
        if (header == null) {
            header = headers.lastHeader(LOWER_CASE_HEADER);
        }
        if (header != null) {
            return header;
        }
        Header found = null;
        for (Header h : headers) {
            if (PayloadFormat.isContentTypeHeader(h.key())) {
                found = h; // the last one wins, as with lastHeader
            }
        }
        return found;
    }

    /** This thread's decoder of {@code format}. */
    PayloadDecoder decoder(PayloadFormat format) {
        PayloadDecoder d = decoders[format.ordinal()];
        if (d == null) {
            d = format.newDecoder(limits);
            decoders[format.ordinal()] = d;
        }
        return d;
    }

    /** After a record of {@code format} was routed: adds what its decoder skipped in it. */
    void tallySkips(PayloadFormat format) {
        long[] tally = skipped[format.ordinal()];
        if (tally.length == 0) {
            return;
        }
        PayloadDecoder d = decoders[format.ordinal()];
        for (int i = 0; i < tally.length; i++) {
            tally[i] += d.skippedInLastRecord(i);
        }
    }

    /** Adds the tallies to {@code sluice_decode_skipped_total} and clears them (once per poll). */
    void publish(IngestMetrics metrics) {
        for (int f = 0; f < skipped.length; f++) {
            long[] tally = skipped[f];
            for (int i = 0; i < tally.length; i++) {
                if (tally[i] != 0) {
                    metrics.decodeSkipped(f, i, tally[i]);
                    tally[i] = 0;
                }
            }
        }
    }
}
