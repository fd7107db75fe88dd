package io.sluice.server.format.otlp;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.WireReader;

/**
 * The text of an OTLP {@code AnyValue} as a label value, per the OpenTelemetry "AnyValue representation
 * for non-OTLP protocols": a string as it is (not copied: a slice of the input), booleans, integers and
 * doubles as JSON values ({@code NaN}, {@code Infinity}, {@code -Infinity} bare at the top, quoted inside),
 * bytes as standard Base64, arrays and key-value lists as JSON (members in the order sent), an empty value
 * as "" (which drops the label). Protobuf's oneof rule holds: of several value fields, the last one counts.
 * Nesting deeper than {@value #MAX_DEPTH} rejects the record.
 *
 * <p>Not thread-safe; owned by one decoder.
 */
final class AnyValueText {
    static final int MAX_DEPTH = 32;

    private static final byte[] BASE64 = PrometheusNames.ascii("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
    private static final byte[] HEX = PrometheusNames.ascii("0123456789abcdef");

    private final FloatText floats;
    private final KeyValueSpans member = new KeyValueSpans();
    private byte[] textBuffer;
    private int textOffset;
    private int textLength;

    AnyValueText(FloatText floats) {
        this.floats = floats;
    }

    /**
     * Reads the AnyValue filling {@code in} up to its limit; its text is then {@link #buffer()}
     * {@code [offset(), offset() + length())}: the input for a string, else what was appended to {@code out}.
     */
    void read(WireReader in, ByteWriter out) throws PayloadException {
        int end = in.limit();
        int valueTag = lastValueField(in);
        int start = out.length();
        if (valueTag != 0 && fieldNumber(valueTag) == OtlpSchema.ANY_STRING) {
            int len = in.readLength("AnyValue.string_value");
            textBuffer = in.buffer();
            textOffset = in.position();
            textLength = len;
        } else {
            if (valueTag != 0) {
                render(in, valueTag, out, 0, false);
            }
            textBuffer = out.buffer();
            textOffset = start;
            textLength = out.length() - start;
        }
        in.position(end);
    }

    byte[] buffer() {
        return textBuffer;
    }

    int offset() {
        return textOffset;
    }

    int length() {
        return textLength;
    }

    /**
     * Checks the fields of the AnyValue filling {@code in}; returns the tag of the last value field, with
     * the reader at its value, or 0 (reader at the end) if there is none.
     */
    private static int lastValueField(WireReader in) throws PayloadException {
        int lastTag = 0;
        int lastValue = -1;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "AnyValue");
            int field = fieldNumber(tag);
            if (field < OtlpSchema.ANY_STRING || field > OtlpSchema.ANY_BYTES) {
                skipField(in, tag, tagPos, "AnyValue");
                continue;
            }
            expectWireType(in, tag, wireTypeOf(field), tagPos, "AnyValue value");
            lastTag = tag;
            lastValue = in.position();
            skipField(in, tag, tagPos, "AnyValue");
        }
        if (lastValue >= 0) {
            in.position(lastValue);
        }
        return lastTag;
    }

    private static int wireTypeOf(int field) {
        return switch (field) {
            case OtlpSchema.ANY_BOOL, OtlpSchema.ANY_INT -> VARINT;
            case OtlpSchema.ANY_DOUBLE -> I64;
            default -> LEN;
        };
    }

    /** Writes the value whose tag was read; {@code nested} values follow JSON's rules for strings and specials. */
    private void render(WireReader in, int tag, ByteWriter out, int depth, boolean nested) throws PayloadException {
        switch (fieldNumber(tag)) {
            case OtlpSchema.ANY_STRING -> {
                int len = in.readLength("AnyValue.string_value");
                quote(in.buffer(), in.position(), len, out);
                in.skip(len, "AnyValue.string_value");
            }
            case OtlpSchema.ANY_BOOL -> writeAscii(in.readVarint("AnyValue.bool_value") != 0 ? "true" : "false", out);
            case OtlpSchema.ANY_INT -> writeDecimal(in.readVarint("AnyValue.int_value"), out);
            case OtlpSchema.ANY_DOUBLE -> {
                double value = Double.longBitsToDouble(in.readLongLE("AnyValue.double_value"));
                boolean quoted = nested && (Double.isNaN(value) || Double.isInfinite(value));
                if (quoted) {
                    out.writeByte('"');
                }
                floats.append(value, FloatText.JSON, out);
                if (quoted) {
                    out.writeByte('"');
                }
            }
            case OtlpSchema.ANY_BYTES -> {
                int len = in.readLength("AnyValue.bytes_value");
                if (nested) {
                    out.writeByte('"');
                }
                base64(in.buffer(), in.position(), len, out);
                if (nested) {
                    out.writeByte('"');
                }
                in.skip(len, "AnyValue.bytes_value");
            }
            default -> list(in, fieldNumber(tag) == OtlpSchema.ANY_KVLIST, out, depth + 1);
        }
    }

    /** An ArrayValue or KeyValueList, at its length, as a JSON array or object. */
    private void list(WireReader in, boolean keyValues, ByteWriter out, int depth) throws PayloadException {
        if (depth > MAX_DEPTH) {
            throw in.error(Reason.BAD_SCHEMA, in.position(), "AnyValue nested deeper than " + MAX_DEPTH);
        }
        int outer = in.pushLimit(in.readLength("AnyValue list"));
        out.writeByte(keyValues ? '{' : '[');
        boolean first = true;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "AnyValue list");
            if (fieldNumber(tag) != OtlpSchema.LIST_VALUES) {
                skipField(in, tag, tagPos, "AnyValue list");
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, "AnyValue list values");
            if (!first) {
                out.writeByte(',');
            }
            first = false;
            int element = in.pushLimit(in.readLength("AnyValue list values"));
            if (keyValues) {
                member(in, out, depth);
            } else {
                element(in, out, depth);
            }
            in.popLimit(element);
        }
        out.writeByte(keyValues ? '}' : ']');
        in.popLimit(outer);
    }

    /** A nested AnyValue filling {@code in}: its JSON value, {@code null} if it is empty. */
    private void element(WireReader in, ByteWriter out, int depth) throws PayloadException {
        int end = in.limit();
        int tag = lastValueField(in);
        if (tag == 0) {
            writeAscii("null", out);
        } else {
            render(in, tag, out, depth, true);
        }
        in.position(end);
    }

    /** A KeyValue filling {@code in}: {@code "key":value}; a missing key is "", a missing value null. */
    private void member(WireReader in, ByteWriter out, int depth) throws PayloadException {
        int end = in.limit();
        member.read(in);
        quote(in.buffer(), member.keyOffset, member.keyLength, out);
        out.writeByte(':');
        if (member.valueOffset < 0) {
            writeAscii("null", out);
        } else {
            in.position(member.valueOffset);
            int outer = in.pushLimit(member.valueLength); // before element(): a nested list reuses member
            element(in, out, depth);
            in.popLimit(outer);
        }
        in.position(end);
    }

    /** A JSON string: quotes, backslashes and control characters escaped, everything else as it is. */
    static void quote(byte[] b, int off, int len, ByteWriter out) {
        out.writeByte('"');
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c == '"' || c == '\\') {
                out.writeByte('\\');
                out.writeByte(c);
            } else if (c >= 0 && c < 0x20) {
                switch (c) {
                    case '\n' -> writeAscii("\\n", out);
                    case '\r' -> writeAscii("\\r", out);
                    case '\t' -> writeAscii("\\t", out);
                    case '\b' -> writeAscii("\\b", out);
                    case '\f' -> writeAscii("\\f", out);
                    default -> {
                        writeAscii("\\u00", out);
                        out.writeByte(HEX[c >> 4]);
                        out.writeByte(HEX[c & 0xF]);
                    }
                }
            } else {
                out.writeByte(c);
            }
        }
        out.writeByte('"');
    }

    /** Standard Base64 (RFC 4648 section 4) with padding. */
    static void base64(byte[] b, int off, int len, ByteWriter out) {
        int i = off;
        for (; i + 2 < off + len; i += 3) {
            int n = (b[i] & 0xFF) << 16 | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF);
            out.writeByte(BASE64[n >>> 18]);
            out.writeByte(BASE64[n >>> 12 & 0x3F]);
            out.writeByte(BASE64[n >>> 6 & 0x3F]);
            out.writeByte(BASE64[n & 0x3F]);
        }
        int left = off + len - i;
        if (left > 0) {
            int n = (b[i] & 0xFF) << 16 | (left == 2 ? (b[i + 1] & 0xFF) << 8 : 0);
            out.writeByte(BASE64[n >>> 18]);
            out.writeByte(BASE64[n >>> 12 & 0x3F]);
            out.writeByte(left == 2 ? BASE64[n >>> 6 & 0x3F] : '=');
            out.writeByte('=');
        }
    }

    /** A signed decimal integer, without a String. */
    static void writeDecimal(long v, ByteWriter out) {
        if (v == Long.MIN_VALUE) {
            writeAscii("-9223372036854775808", out);
            return;
        }
        if (v < 0) {
            out.writeByte('-');
            v = -v;
        }
        long divisor = 1;
        while (divisor <= v / 10) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            out.writeByte((int) ('0' + v / divisor % 10));
        }
    }

    private static void writeAscii(String s, ByteWriter out) {
        for (int i = 0; i < s.length(); i++) {
            out.writeByte(s.charAt(i));
        }
    }
}
