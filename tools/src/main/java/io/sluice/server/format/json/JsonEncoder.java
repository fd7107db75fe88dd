package io.sluice.server.format.json;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.EncoderState;
import io.sluice.server.format.RecordEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * Writes {@code json} record values as prometheus-kafka-adapter does: one JSON object per sample, so
 * one record value per sample:
 * <pre>
 * {"name":"up","labels":{"__name__":"up","job":"node"},"timestamp":"2025-11-22T08:26:40.123Z","value":"1"}
 * </pre>
 * {@code labels} holds every label given, {@code __name__} included (empty values left out), and
 * {@code name} repeats the metric name. The value is a string: Java's shortest round-trip text, or
 * {@code NaN}, {@code +Inf}, {@code -Inf} as Go writes them (text carries no NaN payload, so every NaN,
 * the stale marker included, is read back as Prometheus' {@code NaN}). The timestamp is RFC 3339 in UTC
 * with milliseconds (the adapter writes whole seconds; the decoder reads fractions), years 0000–9999.
 * Strings are escaped per RFC 8259 ({@code "}, {@code \}, control characters); UTF-8 is written as it is.
 *
 * <p>Allocates a String per sample for the number and time texts. Not thread-safe.
 */
public final class JsonEncoder implements RecordEncoder {
    private static final byte[] METRIC_NAME = "__name__".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** 9999-12-31T23:59:59.999Z: the last instant RFC 3339's four-digit year can write. */
    private static final long MAX_MS = 253_402_300_799_999L;
    private static final long MIN_MS = -62_167_219_200_000L; // 0000-01-01T00:00:00Z

    private final ByteWriter out;
    private final ByteWriter labels = new ByteWriter(256); // "\"k\":\"v\"," pairs of the current series
    private byte[] name;
    private int[] offsets = new int[64];
    private int values;
    private final EncoderState state = new EncoderState();

    public JsonEncoder(int initialCapacityBytes) {
        out = new ByteWriter(initialCapacityBytes);
    }

    @Override
    public void reset() {
        out.reset();
        values = 0;
        state.reset();
    }

    @Override
    public void beginSeries() {
        state.beginSeries();
        labels.reset();
        name = null;
    }

    @Override
    public void label(byte[] labelName, byte[] value) {
        state.requireSeries();
        if (Arrays.equals(labelName, METRIC_NAME)) {
            name = value;
        }
        if (value.length > 0) {
            if (labels.length() > 0) {
                labels.writeByte(',');
            }
            string(labelName, labels);
            labels.writeByte(':');
            string(value, labels);
        }
    }

    @Override
    public void sample(long timestampMs, double value) {
        state.requireSeries();
        if (timestampMs < MIN_MS || timestampMs > MAX_MS) {
            throw new IllegalArgumentException("RFC 3339 cannot carry the timestamp " + timestampMs + " ms");
        }
        if (name == null || name.length == 0) {
            throw new IllegalArgumentException("a json sample needs a metric name");
        }
        if (values == offsets.length) {
            offsets = Arrays.copyOf(offsets, values * 2);
        }
        offsets[values++] = out.length();
        ascii("{\"name\":");
        string(name, out);
        ascii(",\"labels\":{");
        out.writeBytes(labels.buffer(), 0, labels.length());
        ascii("},\"timestamp\":\"");
        ascii(Instant.ofEpochMilli(timestampMs).toString());
        ascii("\",\"value\":\"");
        ascii(valueText(value));
        ascii("\"}");
        state.sample();
    }

    /** The value as Go's FormatFloat writes the specials, and Java's shortest round-trip text otherwise. */
    static String valueText(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        return Double.toString(value);
    }

    @Override
    public void endSeries() {
        state.endSeries();
    }

    @Override
    public int finishValues() {
        state.finish();
        return values;
    }

    @Override
    public byte[] buffer() {
        return out.buffer();
    }

    @Override
    public int valueOffset(int i) {
        return offsets[i];
    }

    @Override
    public int valueLength(int i) {
        return (i + 1 < values ? offsets[i + 1] : out.length()) - offsets[i];
    }

    /** A JSON string of UTF-8 text: quotes, backslashes and control characters escaped. */
    private static void string(byte[] text, ByteWriter to) {
        to.writeByte('"');
        for (byte c : text) {
            if (c == '"' || c == '\\') {
                to.writeByte('\\');
                to.writeByte(c);
            } else if (c >= 0 && c < 0x20) {
                to.writeByte('\\');
                to.writeByte('u');
                to.writeByte('0');
                to.writeByte('0');
                to.writeByte(HEX[c >> 4]);
                to.writeByte(HEX[c & 0xF]);
            } else {
                to.writeByte(c);
            }
        }
        to.writeByte('"');
    }

    private void ascii(String s) {
        out.ensureRemaining(s.length());
        for (int i = 0; i < s.length(); i++) {
            out.writeByte(s.charAt(i));
        }
    }
}
