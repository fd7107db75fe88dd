package io.sluice.server.format.influx;

import io.sluice.server.format.ByteSpans;
import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes {@code influx} records: a batch of InfluxDB line-protocol lines, as Telegraf's Kafka output
 * writes them (docs/format/influx.md).
 *
 * <p>Each numeric field of a line becomes one series: {@code __name__} = measurement + "_" + field key
 * (kept as they are, UTF-8 included, as Prometheus 3 allows), the tags as labels, and one sample.
 * Floats, integers ({@code i}), unsigned integers ({@code u}) and booleans (1 or 0) are numeric; string
 * fields are skipped and counted. The timestamp is converted from the configured precision to
 * milliseconds (rounding down); a line without one takes the Kafka record's timestamp.
 *
 * <p>A bad line is skipped and counted by {@link InfluxLineRejection} (the consumer logs it, rate-limited:
 * {@link #lastRejection()}); the rest of the record is kept,
 * so a record never fails for its lines, only for its size ({@code too_large}). A line is checked
 * completely before any of its series reaches the sink, so a skipped line leaves nothing behind.
 *
 * <p>Memory: a scratch buffer for unescaped tokens and span arrays, grown to the longest line seen;
 * nothing is allocated per line or sample once they have grown. Not thread-safe: one instance per
 * consumer thread, which owns every field, counters included (read them from that thread, or publish
 * them).
 */
public final class InfluxDecoder implements PayloadDecoder {
    /** Kafka's timestamp of a record that has none ({@code RecordBatch.NO_TIMESTAMP}). */
    public static final long NO_RECORD_TIMESTAMP = -1;

    /**
     * The {@code sluice_decode_skipped_total} reasons: {@code string_field} (a string field of a line that
     * was stored), then {@code line_<reason>} for each {@link InfluxLineRejection} (a whole line skipped).
     */
    public static final List<String> SKIP_REASONS = skipReasons();
    private static final int STRING_FIELD = 0;

    private static final byte[] METRIC_NAME = "__name__".getBytes(StandardCharsets.US_ASCII);

    private final DecoderLimits limits;
    private final InfluxPrecision precision;
    private final InfluxLineParser parser = new InfluxLineParser();
    private final ByteWriter name = new ByteWriter(128);

    private final long[] linesRejected = new long[InfluxLineRejection.values().length];
    /** Indexed like {@link #SKIP_REASONS}: what the current (last) record skipped. */
    private final long[] recordSkipped = new long[SKIP_REASONS.size()];
    private long pointsDecodedTotal;
    private long stringFieldsSkippedTotal;
    // The last line the current (last) record skipped: null if it skipped none.
    private InfluxLineRejection lastRejection;
    private int lastRejectionLine;
    private long lastRejectionPosition;
    private String lastRejectionDetail;
    private int line; // 1-based number of the line being decoded in the current record

    /** A decoder for nanosecond timestamps, Telegraf's. */
    public InfluxDecoder(DecoderLimits limits) {
        this(limits, InfluxPrecision.NANOSECONDS);
    }

    public InfluxDecoder(DecoderLimits limits, InfluxPrecision precision) {
        this.limits = limits;
        this.precision = precision;
    }

    @Override
    public void decode(byte[] value, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        limits.checkRecordSize(len);
        Arrays.fill(recordSkipped, 0);
        lastRejection = null;
        line = 0;
        int end = off + len;
        int p = off;
        while (p < end) {
            line++;
            p = parser.parse(value, p, end);
            if (parser.rejection() != null) {
                reject(parser.rejection(), parser.errorPosition() - off, parser.errorDetail());
            } else if (parser.hasPoint()) {
                point(value, off, recordTimestampMs, sink);
            }
        }
    }

    private void point(byte[] value, int off, long recordTimestampMs, MetricSink sink) {
        long timestampMs = recordTimestampMs;
        if (parser.hasTimestamp()) {
            if (!precision.fits(parser.timestamp())) {
                reject(InfluxLineRejection.OUT_OF_RANGE, parser.lineStart() - off, "timestamp beyond the millisecond range");
                return;
            }
            timestampMs = precision.toMillis(parser.timestamp());
        } else if (recordTimestampMs == NO_RECORD_TIMESTAMP) {
            reject(InfluxLineRejection.NO_TIMESTAMP, parser.lineStart() - off, "line and record have no timestamp");
            return;
        }
        pointsDecodedTotal++;
        ByteSpans fields = parser.fieldKeys();
        for (int f = 0; f < fields.count(); f++) {
            if (parser.fieldKind(f) == InfluxLineParser.STRING) {
                stringFieldsSkippedTotal++;
                recordSkipped[STRING_FIELD]++;
            } else {
                series(f, sink);
                sink.sample(timestampMs, parser.fieldValue(f));
            }
        }
    }

    /** Emits the labels of field {@code f}'s series: its name, then the tags in line order. */
    private void series(int f, MetricSink sink) {
        ByteSpans tokens = parser.tokens();
        ByteSpans fields = parser.fieldKeys();
        name.reset();
        name.writeBytes(parser.buffer(tokens, 0), tokens.offset(0), tokens.length(0));
        name.writeByte('_');
        name.writeBytes(parser.buffer(fields, f), fields.offset(f), fields.length(f));
        sink.beginSeries();
        sink.label(METRIC_NAME, 0, METRIC_NAME.length, name.buffer(), 0, name.length());
        for (int key = 1; key < tokens.count(); key += 2) {
            sink.label(parser.buffer(tokens, key), tokens.offset(key), tokens.length(key),
                    parser.buffer(tokens, key + 1), tokens.offset(key + 1), tokens.length(key + 1));
        }
        sink.endLabels();
    }

    private void reject(InfluxLineRejection reason, long position, String detail) {
        linesRejected[reason.ordinal()]++;
        recordSkipped[1 + reason.ordinal()]++;
        lastRejection = reason;
        lastRejectionLine = line;
        lastRejectionPosition = position;
        lastRejectionDetail = detail;
    }

    @Override
    public long skippedInLastRecord(int reason) {
        return recordSkipped[reason];
    }

    private static List<String> skipReasons() {
        List<String> reasons = new ArrayList<>();
        reasons.add("string_field");
        for (InfluxLineRejection r : InfluxLineRejection.values()) {
            reasons.add("line_" + r.label());
        }
        return List.copyOf(reasons);
    }

    /** Lines skipped for {@code reason} since this decoder was created. */
    public long linesRejectedTotal(InfluxLineRejection reason) {
        return linesRejected[reason.ordinal()];
    }

    /** Lines skipped for any reason. */
    public long linesRejectedTotal() {
        long total = 0;
        for (long n : linesRejected) {
            total += n;
        }
        return total;
    }

    /** Lines that became series (blank lines and comments are not counted). */
    public long pointsDecodedTotal() {
        return pointsDecodedTotal;
    }

    /** String fields of decoded lines, which Sluice does not store. */
    public long stringFieldsSkippedTotal() {
        return stringFieldsSkippedTotal;
    }

    /**
     * The last line the last decoded record skipped, for the consumer's rate-limited log: its number
     * (from 1), byte position in the record, reason and what was wrong; {@code null} if the record
     * skipped no line. Allocates only when there is one.
     */
    public String lastRejection() {
        return lastRejection == null ? null : "line " + lastRejectionLine + " (byte " + lastRejectionPosition + "): "
                + lastRejection.label() + ": " + lastRejectionDetail;
    }
}
