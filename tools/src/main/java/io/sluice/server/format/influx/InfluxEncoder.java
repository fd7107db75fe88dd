package io.sluice.server.format.influx;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.EncoderState;
import io.sluice.server.format.RecordEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@code influx} record values: one line of InfluxDB line protocol per sample, all lines of a
 * record in one value (as Telegraf batches them), so that {@link InfluxDecoder} gives back the series:
 *
 * <ul>
 *   <li>the metric name is split at its last '_' into measurement and field key
 *       ({@code node_cpu_seconds_total} → measurement {@code node_cpu_seconds}, field {@code total});
 *       a name without '_' inside it, or starting with '#' (a comment line), cannot be written;
 *   <li>the other labels become tags in the order given; empty values are left out (line protocol has no
 *       empty tag values, Prometheus no empty labels);
 *   <li>the value is a float field in Java's shortest round-trip text (NaN and infinities cannot be
 *       written: line protocol has no text for them); the timestamp is in nanoseconds.
 * </ul>
 *
 * <p>Escaping as the decoder reads it: ',' and ' ' in the measurement, ',', '=' and ' ' in keys and tag
 * values get a backslash; other backslashes are written as they are. Text with a newline, or ending in a
 * backslash (which would escape the delimiter after it), cannot be written.
 *
 * <p>Allocates a String per sample for the number's text. Not thread-safe.
 */
public final class InfluxEncoder implements RecordEncoder {
    private static final byte[] METRIC_NAME = "__name__".getBytes(StandardCharsets.US_ASCII);
    private static final long NANOS_PER_MS = 1_000_000;

    private final ByteWriter out;
    private final ByteWriter tags = new ByteWriter(256);   // ",key=value" of the current series, escaped
    private final ByteWriter prefix = new ByteWriter(256); // "measurement,tags field=" of the current series
    private byte[] name;
    private final EncoderState state = new EncoderState();

    public InfluxEncoder(int initialCapacityBytes) {
        out = new ByteWriter(initialCapacityBytes);
    }

    @Override
    public void reset() {
        out.reset();
        state.reset();
    }

    @Override
    public void beginSeries() {
        state.beginSeries();
        tags.reset();
        prefix.reset();
        name = null;
    }

    @Override
    public void label(byte[] labelName, byte[] value) {
        state.requireSeries();
        if (java.util.Arrays.equals(labelName, METRIC_NAME)) {
            name = value;
        } else if (value.length > 0) {
            tags.writeByte(',');
            escape(labelName, 0, labelName.length, true, tags);
            tags.writeByte('=');
            escape(value, 0, value.length, true, tags);
        }
    }

    @Override
    public void sample(long timestampMs, double value) {
        state.requireSeries();
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("line protocol cannot carry the value " + value);
        }
        if (prefix.length() == 0) {
            writePrefix();
        }
        long timestampNs;
        try {
            timestampNs = Math.multiplyExact(timestampMs, NANOS_PER_MS);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("timestamp " + timestampMs + " ms is beyond int64 nanoseconds", e);
        }
        out.writeBytes(prefix.buffer(), 0, prefix.length());
        writeAscii(Double.toString(value));
        out.writeByte(' ');
        writeAscii(Long.toString(timestampNs));
        out.writeByte('\n');
        state.sample();
    }

    @Override
    public void endSeries() {
        state.endSeries();
    }

    @Override
    public int finishValues() {
        state.finish();
        return 1;
    }

    @Override
    public byte[] buffer() {
        return out.buffer();
    }

    @Override
    public int valueLength(int i) {
        return out.length();
    }

    private void writePrefix() {
        int split = name == null ? -1 : lastUnderscore(name);
        if (split <= 0 || split == name.length - 1 || name[0] == '#') { // '#' would start a comment line
            throw new IllegalArgumentException("line protocol needs a metric name measurement_field, not '"
                    + (name == null ? "" : new String(name, StandardCharsets.UTF_8)) + "'");
        }
        escape(name, 0, split, false, prefix);
        prefix.writeBytes(tags.buffer(), 0, tags.length());
        prefix.writeByte(' ');
        escape(name, split + 1, name.length - split - 1, true, prefix);
        prefix.writeByte('=');
    }

    private static int lastUnderscore(byte[] b) {
        for (int i = b.length - 1; i >= 0; i--) {
            if (b[i] == '_') {
                return i;
            }
        }
        return -1;
    }

    /** Writes a token escaped for a measurement ({@code key = false}) or a key or tag value. */
    private static void escape(byte[] b, int off, int len, boolean key, ByteWriter to) {
        if (len > 0 && b[off + len - 1] == '\\') {
            throw new IllegalArgumentException("line protocol cannot carry text ending in a backslash: '"
                    + new String(b, off, len, StandardCharsets.UTF_8) + "'");
        }
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c == '\n' || c == '\r') {
                throw new IllegalArgumentException("line protocol cannot carry a line break in '"
                        + new String(b, off, len, StandardCharsets.UTF_8) + "'");
            }
            if (c == ',' || c == ' ' || (key && c == '=')) {
                to.writeByte('\\');
            }
            to.writeByte(c);
        }
    }

    private void writeAscii(String s) {
        out.ensureRemaining(s.length());
        for (int i = 0; i < s.length(); i++) {
            out.writeByte(s.charAt(i));
        }
    }
}
