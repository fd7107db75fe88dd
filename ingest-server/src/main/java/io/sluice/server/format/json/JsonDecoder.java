package io.sluice.server.format.json;

import io.sluice.server.format.ByteSpans;
import io.sluice.server.format.DecimalParser;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes {@code json} records: one sample per record, as prometheus-kafka-adapter writes it
 * (docs/format/json.md):
 * <pre>
 * {"timestamp": "2020-01-01T00:00:00Z", "value": "1.5", "name": "up", "labels": {"__name__": "up", "job": "node"}}
 * </pre>
 * Members in any order; unknown members are skipped. {@code value} is a string as Go's
 * {@code strconv.FormatFloat} writes it ("NaN", "+Inf", "-Inf" included) or a JSON number;
 * {@code timestamp} is RFC 3339. The series is {@code labels}, with {@code name} as {@code __name__}
 * when {@code labels} has none; when both are given they must agree.
 *
 * <p>The whole object is read before anything reaches the sink, so a rejected record emits nothing.
 * Label bytes are handed over as spans of the record, or of the reader's scratch buffer when they were
 * escaped. Allocation-free once the scratch buffer and span arrays have grown. Not thread-safe: one
 * instance per consumer thread.
 */
public final class JsonDecoder implements PayloadDecoder {
    private static final byte[] TIMESTAMP = ascii("timestamp");
    private static final byte[] VALUE = ascii("value");
    private static final byte[] NAME = ascii("name");
    private static final byte[] LABELS = ascii("labels");
    private static final byte[] METRIC_NAME = ascii("__name__");

    private final DecoderLimits limits;
    private final JsonReader in = new JsonReader();
    private final DecimalParser decimal = new DecimalParser();
    /** Label i: name at 2i, value at 2i + 1. */
    private final ByteSpans labels = new ByteSpans(32);
    /** The top-level "name", at index 0 when present. */
    private final ByteSpans name = new ByteSpans(1);

    private boolean hasTimestamp;
    private boolean hasValue;
    private boolean hasLabels;
    private long timestampMs;
    private double value;
    private int labelsMetricName;

    public JsonDecoder(DecoderLimits limits) {
        this.limits = limits;
    }

    @Override
    public void decode(byte[] record, int off, int len, long recordTimestampMs, MetricSink sink) throws PayloadException {
        limits.checkRecordSize(len);
        in.wrap(record, off, len);
        labels.clear();
        name.clear();
        hasTimestamp = false;
        hasValue = false;
        hasLabels = false;
        labelsMetricName = -1;
        readObject();
        in.expectEnd();
        checkComplete();
        emit(sink);
    }

    private void readObject() throws PayloadException {
        in.expect('{', "a JSON object");
        if (in.consume('}')) {
            return;
        }
        do {
            int memberPos = in.position();
            in.readString();
            in.expect(':', "':' after a member name");
            if (in.stringEquals(TIMESTAMP)) {
                once(hasTimestamp, memberPos, "timestamp");
                readTimestamp();
            } else if (in.stringEquals(VALUE)) {
                once(hasValue, memberPos, "value");
                readValue();
            } else if (in.stringEquals(NAME)) {
                once(name.count() > 0, memberPos, "name");
                readName();
            } else if (in.stringEquals(LABELS)) {
                once(hasLabels, memberPos, "labels");
                readLabels();
            } else {
                in.skipValue(1);
            }
        } while (in.consume(','));
        in.expect('}', "',' or '}' in the object");
    }

    private void readTimestamp() throws PayloadException {
        int at = stringMember("timestamp must be an RFC 3339 string");
        in.readString();
        long ms = Rfc3339.parseMillis(in.stringBuffer(), in.stringOffset(), in.stringLength());
        if (ms == Rfc3339.INVALID) {
            throw in.error(Reason.BAD_VALUE, at, "timestamp is not an RFC 3339 date-time");
        }
        timestampMs = ms;
        hasTimestamp = true;
    }

    private void readValue() throws PayloadException {
        in.expectValue();
        int c = in.peek();
        int at = in.position();
        if (c == '"') {
            in.readString();
            parseValueString(at);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            int start = in.readNumber();
            if (!decimal.parse(in.input(), start, in.position() - start, 0)) {
                throw in.error(Reason.BAD_VALUE, start, "value is out of the float64 range");
            }
            value = decimal.value();
        } else {
            throw in.error(Reason.BAD_SCHEMA, at, "value must be a string or a number");
        }
        hasValue = true;
    }

    private void parseValueString(int at) throws PayloadException {
        if (!decimal.parse(in.stringBuffer(), in.stringOffset(), in.stringLength(),
                DecimalParser.ALLOW_PLUS | DecimalParser.ALLOW_SPECIALS)) {
            throw in.error(Reason.BAD_VALUE, at, decimal.outOfRange() ? "value is out of the float64 range"
                    : "value is not a float (digits, NaN, +Inf or -Inf)");
        }
        value = decimal.value();
    }

    private void readName() throws PayloadException {
        stringMember("name must be a string");
        in.readString();
        in.addString(name);
    }

    private void readLabels() throws PayloadException {
        in.expectValue();
        if (in.peek() != '{') {
            throw in.error(Reason.BAD_SCHEMA, in.position(), "labels must be an object of strings");
        }
        in.expect('{', "an object of labels");
        hasLabels = true;
        if (in.consume('}')) {
            return;
        }
        do {
            in.readString();
            boolean isMetricName = in.stringEquals(METRIC_NAME);
            in.addString(labels);
            in.expect(':', "':' after a label name");
            stringMember("label values must be strings");
            in.readString();
            if (isMetricName) {
                labelsMetricName = labels.count();
            }
            in.addString(labels);
        } while (in.consume(','));
        in.expect('}', "',' or '}' in the labels");
    }

    /** Fails with bad_schema unless a string comes next; returns its position. */
    private int stringMember(String detail) throws PayloadException {
        in.expectValue();
        if (in.peek() != '"') {
            throw in.error(Reason.BAD_SCHEMA, in.position(), detail);
        }
        return in.position();
    }

    private void once(boolean seen, int memberPos, String member) throws PayloadException {
        if (seen) {
            throw in.error(Reason.BAD_SCHEMA, memberPos, "member " + member + " given twice");
        }
    }

    private void checkComplete() throws PayloadException {
        if (!hasTimestamp || !hasValue) {
            throw new PayloadException(Reason.BAD_SCHEMA, 0, "record", hasValue ? "no timestamp" : "no value");
        }
        if (!hasLabels) { // the adapter always writes labels (with __name__); its Avro schema requires them
            throw new PayloadException(Reason.BAD_SCHEMA, 0, "record", "no labels");
        }
        if (name.count() > 0 && labelsMetricName >= 0 && !sameBytes(name, 0, labels, labelsMetricName)) {
            throw new PayloadException(Reason.BAD_SCHEMA, 0, "record", "name differs from labels.__name__");
        }
    }

    private void emit(MetricSink sink) {
        byte[] input = in.input();
        byte[] scratch = in.scratch();
        sink.beginSeries();
        if (labelsMetricName < 0 && name.count() > 0) {
            sink.label(METRIC_NAME, 0, METRIC_NAME.length, name.buffer(0, input, scratch), name.offset(0), name.length(0));
        }
        for (int i = 0; i < labels.count(); i += 2) {
            sink.label(labels.buffer(i, input, scratch), labels.offset(i), labels.length(i),
                    labels.buffer(i + 1, input, scratch), labels.offset(i + 1), labels.length(i + 1));
        }
        sink.endLabels();
        sink.sample(timestampMs, value);
    }

    private boolean sameBytes(ByteSpans a, int i, ByteSpans b, int j) {
        byte[] input = in.input();
        byte[] scratch = in.scratch();
        return Arrays.equals(a.buffer(i, input, scratch), a.offset(i), a.offset(i) + a.length(i),
                b.buffer(j, input, scratch), b.offset(j), b.offset(j) + b.length(j));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
