package io.sluice.server.kafka;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.influx.InfluxDecoder;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A consumer thread's decoders, one per payload format (made on first use), the per-record choice of
 * format, and the tallies of what the decoders skipped inside accepted records.
 *
 * <p>The format of a record is its topic's, except that a remote-write topic's record may name its
 * version in a {@value PayloadFormat#CONTENT_TYPE_HEADER} header ({@link PayloadFormat#forRecord}). Kafka
 * header keys are case-sensitive; the header is looked up under the spellings {@link #HEADER_SPELLINGS}
 * with {@code Headers.lastHeader}, which allocates nothing (walking the headers to compare keys ignoring
 * case would allocate an iterator for every record, also for the many without the header).
 *
 * <p>Owned by one consumer thread: every field is read and written by that thread only.
 */
final class RecordFormats {
    /** The spellings of the header key that are read, the first found winning; others are not the header. */
    static final String[] HEADER_SPELLINGS = {"Content-Type", "content-type", "Content-type", "CONTENT-TYPE"};

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
        for (String key : HEADER_SPELLINGS) {
            Header header = headers.lastHeader(key); // the last header of that key wins
            if (header != null) {
                return header;
            }
        }
        return null;
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

    /**
     * After a routed record of {@code format}: the last line of it its decoder skipped (influx: number,
     * byte, reason, detail), or null if none. Allocates only when there is one.
     */
    String skippedLine(PayloadFormat format) {
        return decoders[format.ordinal()] instanceof InfluxDecoder influx ? influx.lastRejection() : null;
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
