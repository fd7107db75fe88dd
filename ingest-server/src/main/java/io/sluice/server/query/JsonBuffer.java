package io.sluice.server.query;

import io.sluice.core.labels.LabelsView;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer with just the JSON writing the query API needs: strings escaped as Go's
 * {@code encoding/json} escapes them (Prometheus' JSON library is configured compatible with it:
 * {@code <}, {@code >}, {@code &}, U+2028 and U+2029 as {@code \\u} escapes), label sets straight
 * from canonical label bytes and with only quotes, backslashes and control characters escaped (Prometheus
 * writes a label set with its own encoder, which does not escape the others), Prometheus timestamps and
 * values. Reusable ({@link #reset}); one per
 * request thread.
 */
final class JsonBuffer {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final int TIMESTAMP_SLOT_BITS = 10;
    private static final int TIMESTAMP_SLOTS = 1 << TIMESTAMP_SLOT_BITS;
    /** The longest timestamp text: {@code -9223372036854775.808}. */
    private static final int TIMESTAMP_BYTES = 21;
    private byte[] bytes;
    private int length;
    private final StringBuilder scratch = new StringBuilder(32); // a value's text on its way into bytes

    // timestamp(): formatted timestamps by a hash of their value, allocated on first use.
    private long[] timestampKeys;
    private byte[] timestampLengths;
    private byte[] timestampTexts;

    JsonBuffer(int initialBytes) {
        bytes = new byte[initialBytes];
    }

    void reset() {
        length = 0;
    }

    int length() {
        return length;
    }

    /** Drops what was written after {@code newLength} (a series that turned out to have no point). */
    void truncate(int newLength) {
        length = newLength;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    void writeTo(OutputStream out) throws IOException {
        out.write(bytes, 0, length);
    }

    JsonBuffer raw(char c) {
        ensure(1);
        bytes[length++] = (byte) c;
        return this;
    }

    /** ASCII text without escaping (keys and punctuation written by us). */
    JsonBuffer raw(String ascii) {
        ensure(ascii.length());
        for (int i = 0; i < ascii.length(); i++) {
            bytes[length++] = (byte) ascii.charAt(i);
        }
        return this;
    }

    JsonBuffer string(String s) {
        return string(s, true);
    }

    /** A label name or value: as {@link #string(String)}, but {@code <}, {@code >}, {@code &}, U+2028 and U+2029 as they are. */
    JsonBuffer labelString(String s) {
        return string(s, false);
    }

    private JsonBuffer string(String s, boolean html) {
        int n = s.length();
        ensure(n + 2);
        int start = length;
        bytes[length++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) { // not ASCII: through its UTF-8 bytes
                length = start;
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                return string(utf8, 0, utf8.length, html);
            }
            if (c >= 0x20 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&'))) {
                bytes[length++] = (byte) c;
            } else {
                escape(c);
                ensure(n - i + 1);
            }
        }
        bytes[length++] = '"';
        return this;
    }

    /** A JSON string of valid UTF-8 bytes. */
    JsonBuffer string(byte[] utf8, int off, int len) {
        return string(utf8, off, len, true);
    }

    private JsonBuffer string(byte[] utf8, int off, int len, boolean html) {
        // Room for every byte unescaped and the quotes; an escape makes room for the rest again.
        ensure(len + 2);
        bytes[length++] = '"';
        int end = off + len;
        for (int i = off; i < end; i++) {
            int b = utf8[i] & 0xFF;
            if (b >= 0x20 && b != '"' && b != '\\' && !(html && (b == '<' || b == '>' || b == '&' || b == 0xE2))) {
                bytes[length++] = (byte) b;
            } else if (b == 0xE2 && i + 2 < end && (utf8[i + 1] & 0xFF) == 0x80
                    && ((utf8[i + 2] & 0xFF) == 0xA8 || (utf8[i + 2] & 0xFF) == 0xA9)) {
                unicodeEscape((utf8[i + 2] & 0xFF) == 0xA8 ? 0x2028 : 0x2029);
                i += 2;
                ensure(end - i + 1);
            } else if (b == 0xE2) {
                bytes[length++] = (byte) b;
            } else {
                escape(b);
                ensure(end - i + 1);
            }
        }
        bytes[length++] = '"';
        return this;
    }

    private void escape(int b) {
        switch (b) {
            case '"' -> raw("\\\"");
            case '\\' -> raw("\\\\");
            case '\n' -> raw("\\n");
            case '\r' -> raw("\\r");
            case '\t' -> raw("\\t");
            default -> unicodeEscape(b);
        }
    }

    private void unicodeEscape(int c) {
        ensure(6);
        bytes[length++] = '\\';
        bytes[length++] = 'u';
        for (int shift = 12; shift >= 0; shift -= 4) {
            bytes[length++] = HEX[(c >>> shift) & 0xF];
        }
    }

    /**
     * A label set as a JSON object, in canonical (name) order; {@code html}: {@code <}, {@code >}, {@code &},
     * U+2028 and U+2029 escaped (as {@link #string(String)}) or not (as {@link #labelString}, Prometheus').
     */
    JsonBuffer labels(LabelsView labels, byte[] array, boolean html) {
        raw('{');
        labels.rewind();
        boolean first = true;
        while (labels.next()) {
            if (!first) {
                raw(',');
            }
            first = false;
            string(array, labels.nameOffset(), labels.nameLength(), html).raw(':')
                    .string(array, labels.valueOffset(), labels.valueLength(), html);
        }
        labels.rewind();
        return raw('}');
    }

    JsonBuffer number(long v) {
        ensure(20);
        if (v < 0) {
            bytes[length++] = '-';
            if (v == Long.MIN_VALUE) {
                return raw("9223372036854775808");
            }
            v = -v;
        }
        int digits = 1;
        for (long p = 10; digits < 19 && v >= p; p *= 10) {
            digits++;
        }
        for (int i = length + digits - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length += digits;
        return this;
    }

    /**
     * A value as Prometheus writes it ({@link PromFloat}); without quotes, so a caller decides:
     * query results quote every value, export writes finite ones as JSON numbers.
     */
    JsonBuffer value(double v) {
        if (PromFloat.isSpecial(v)) {
            return raw(PromFloat.special(v));
        }
        if (PromFloat.isSmallInteger(v)) {
            if (v == 0 && Double.doubleToRawLongBits(v) != 0) {
                raw('-');
            }
            return number((long) v);
        }
        scratch.setLength(0);
        PromFloat.append(v, scratch);
        return scratchOut();
    }

    /** A value as Go's {@code strconv.FormatFloat(v, 'f', -1, 64)} writes it ({@link PromFloat#appendFixed}), without quotes. */
    JsonBuffer fixedValue(double v) {
        scratch.setLength(0);
        PromFloat.appendFixed(v, scratch);
        return scratchOut();
    }

    /**
     * Milliseconds as seconds the way Go's encoding/json writes the float64 {@code ms / 1000}
     * ({@code 1.25}, {@code 2}, {@code -1.5}): the time of a scalar or string result, which Prometheus
     * marshals with encoding/json, unlike a sample's {@link #timestamp}.
     */
    JsonBuffer goJsonSeconds(long ms) {
        scratch.setLength(0);
        PromFloat.append(ms / 1000.0, scratch); // |ms / 1000| is 0 or at least 0.001: Go's plain form
        return scratchOut();
    }

    private JsonBuffer scratchOut() {
        ensure(scratch.length());
        for (int i = 0; i < scratch.length(); i++) {
            bytes[length++] = (byte) scratch.charAt(i);
        }
        return this;
    }

    /**
     * Milliseconds as Prometheus' JSON writes a timestamp: seconds, then for a fraction exactly three
     * digits ({@code 1.5} s is {@code 1.500}, {@code 2} s is {@code 2}).
     */
    JsonBuffer timestamp(long ms) {
        // A matrix repeats its steps' timestamps in every series: each is formatted once, then copied.
        if (timestampKeys == null) {
            timestampKeys = new long[TIMESTAMP_SLOTS];
            timestampLengths = new byte[TIMESTAMP_SLOTS];
            timestampTexts = new byte[TIMESTAMP_SLOTS * TIMESTAMP_BYTES];
        }
        int slot = (int) ((ms * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - TIMESTAMP_SLOT_BITS));
        int len = timestampLengths[slot];
        if (len != 0 && timestampKeys[slot] == ms) {
            ensure(len);
            System.arraycopy(timestampTexts, slot * TIMESTAMP_BYTES, bytes, length, len);
            length += len;
            return this;
        }
        int start = length;
        formatTimestamp(ms);
        timestampKeys[slot] = ms;
        timestampLengths[slot] = (byte) (length - start);
        System.arraycopy(bytes, start, timestampTexts, slot * TIMESTAMP_BYTES, length - start);
        return this;
    }

    private void formatTimestamp(long ms) {
        if (ms < 0) {
            raw('-');
            if (ms == Long.MIN_VALUE) {
                raw("9223372036854775.808");
                return;
            }
            ms = -ms;
        }
        number(ms / 1000);
        long fraction = ms % 1000;
        if (fraction != 0) {
            raw('.');
            if (fraction < 100) {
                raw('0');
            }
            if (fraction < 10) {
                raw('0');
            }
            number(fraction);
        }
    }

    private void ensure(int n) {
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
        }
    }
}
