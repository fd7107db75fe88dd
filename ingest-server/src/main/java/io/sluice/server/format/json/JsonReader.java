package io.sluice.server.format.json;

import io.sluice.core.labels.Utf8;
import io.sluice.server.format.ByteSpans;
import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import java.util.Arrays;

/**
 * A streaming reader of RFC 8259 JSON text over a byte range, allocation-free: strings come back as
 * spans of the input, or of a scratch buffer when they hold escapes (&#92;uXXXX with surrogate
 * pairs encoded to UTF-8). Strings must be well-formed UTF-8 and a lone surrogate escape is rejected,
 * so every string it returns is valid UTF-8. Values it is not asked for are skipped, nested up to
 * {@value #MAX_DEPTH} deep.
 *
 * <p>Errors are {@link PayloadException}s with the byte position in the record: {@code bad_json} for
 * syntax, {@code invalid_utf8} for text. Not thread-safe; owned by its decoder.
 */
final class JsonReader {
    static final int MAX_DEPTH = 64;
    /** Bytes that end a run of plain string text: the quote, the backslash and the control characters. */
    private static final boolean[] STRING_SPECIAL = new boolean[256];

    static {
        for (int c = 0; c < 0x20; c++) {
            STRING_SPECIAL[c] = true;
        }
        STRING_SPECIAL['"'] = true;
        STRING_SPECIAL['\\'] = true;
    }

    private final ByteWriter scratch = new ByteWriter(256);
    private byte[] b = new byte[0];
    private int pos;
    private int end;
    private int origin;

    // The last string read.
    private int stringSource;
    private int stringOffset;
    private int stringLength;

    void wrap(byte[] input, int off, int len) {
        b = input;
        pos = off;
        end = off + len;
        origin = off;
        scratch.reset();
    }

    byte[] input() {
        return b;
    }

    byte[] scratch() {
        return scratch.buffer();
    }

    int position() {
        return pos;
    }

    /** Skips white space; returns the next byte without consuming it, or -1 at the end. */
    int peek() {
        while (pos < end && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r')) {
            pos++;
        }
        return pos < end ? b[pos] & 0xFF : -1;
    }

    /** Skips white space and consumes {@code c}, or fails naming what was expected. */
    void expect(char c, String expected) throws PayloadException {
        if (peek() != c) {
            throw error(Reason.BAD_JSON, pos, "expected " + expected);
        }
        pos++;
    }

    /** Consumes {@code c} after white space if it is next; returns whether it was. */
    boolean consume(char c) {
        if (peek() == c) {
            pos++;
            return true;
        }
        return false;
    }

    /** Fails with bad_json if the text ends where a value belongs (a cut record, not a mistyped member). */
    void expectValue() throws PayloadException {
        if (peek() < 0) {
            throw error(Reason.BAD_JSON, pos, "expected a value, found the end");
        }
    }

    /** Fails unless only white space is left. */
    void expectEnd() throws PayloadException {
        if (peek() >= 0) {
            throw error(Reason.BAD_JSON, pos, "text after the end of the object");
        }
    }

    /** Reads a string (after white space) into {@link #stringSpan}. */
    void readString() throws PayloadException {
        expect('"', "a string");
        int start = pos;
        int scratchStart = -1;
        int highBits = 0;
        while (true) {
            // The common case: a run of plain bytes, one table look-up each, copied in one go if need be.
            int run = pos;
            while (pos < end && !STRING_SPECIAL[b[pos] & 0xFF]) {
                highBits |= b[pos++];
            }
            if (scratchStart >= 0) {
                scratch.writeBytes(b, run, pos - run);
            }
            if (pos >= end) {
                throw error(Reason.BAD_JSON, start - 1, "string without its closing quote");
            }
            byte c = b[pos];
            if (c == '"') {
                break;
            }
            if (c != '\\') {
                throw error(Reason.BAD_JSON, pos, "control character in a string");
            }
            if (scratchStart < 0) {
                scratchStart = scratch.length();
                scratch.writeBytes(b, start, pos - start);
            }
            escape();
        }
        stringSource = scratchStart < 0 ? ByteSpans.INPUT : ByteSpans.SCRATCH;
        stringOffset = scratchStart < 0 ? start : scratchStart;
        stringLength = scratchStart < 0 ? pos - start : scratch.length() - scratchStart;
        pos++;
        if (highBits < 0 && Utf8.firstInvalid(stringBuffer(), stringOffset, stringLength) >= 0) {
            throw error(Reason.INVALID_UTF8, start, "string is not well-formed UTF-8");
        }
    }

    /** The array the last string lies in: the input or the scratch buffer. */
    byte[] stringBuffer() {
        return stringSource == ByteSpans.INPUT ? b : scratch.buffer();
    }

    int stringOffset() {
        return stringOffset;
    }

    int stringLength() {
        return stringLength;
    }

    /** Adds the last string's span to {@code spans}. */
    void addString(ByteSpans spans) {
        spans.add(stringSource, stringOffset, stringLength);
    }

    /** Whether the last string equals {@code ascii} (a constant). */
    boolean stringEquals(byte[] ascii) {
        return Arrays.equals(stringBuffer(), stringOffset, stringOffset + stringLength, ascii, 0, ascii.length);
    }

    /** Scans a JSON number (RFC 8259 grammar) after white space; returns its start, {@link #position()} is its end. */
    int readNumber() throws PayloadException {
        peek();
        int start = pos;
        if (pos < end && b[pos] == '-') {
            pos++;
        }
        if (pos < end && b[pos] == '0') {
            pos++;
        } else if (!digits()) {
            throw error(Reason.BAD_JSON, start, "invalid number");
        }
        if (pos < end && b[pos] == '.') {
            pos++;
            if (!digits()) {
                throw error(Reason.BAD_JSON, start, "invalid number: no digit after '.'");
            }
        }
        if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
            pos++;
            if (pos < end && (b[pos] == '+' || b[pos] == '-')) {
                pos++;
            }
            if (!digits()) {
                throw error(Reason.BAD_JSON, start, "invalid number: no digit in the exponent");
            }
        }
        return start;
    }

    /** Skips any value after white space, checking its syntax; {@code depth} counts enclosing containers. */
    void skipValue(int depth) throws PayloadException {
        int c = peek();
        switch (c) {
            case '"' -> readString();
            case '{' -> skipObject(depth + 1);
            case '[' -> skipArray(depth + 1);
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    readNumber();
                } else {
                    throw error(Reason.BAD_JSON, pos, c < 0 ? "expected a value, found the end" : "expected a value");
                }
            }
        }
    }

    /** Fails if a container opened now would be nested deeper than {@value #MAX_DEPTH}. */
    void checkDepth(int depth) throws PayloadException {
        if (depth > MAX_DEPTH) {
            throw error(Reason.BAD_JSON, pos, "nested deeper than " + MAX_DEPTH);
        }
    }

    PayloadException error(Reason reason, int absolutePos, String detail) {
        return new PayloadException(reason, absolutePos - origin, "record", detail);
    }

    private void skipObject(int depth) throws PayloadException {
        checkDepth(depth);
        pos++;
        if (consume('}')) {
            return;
        }
        do {
            readString();
            expect(':', "':' after a member name");
            skipValue(depth);
        } while (consume(','));
        expect('}', "',' or '}' in an object");
    }

    private void skipArray(int depth) throws PayloadException {
        checkDepth(depth);
        pos++;
        if (consume(']')) {
            return;
        }
        do {
            skipValue(depth);
        } while (consume(','));
        expect(']', "',' or ']' in an array");
    }

    private void literal(String word) throws PayloadException {
        for (int i = 0; i < word.length(); i++) {
            if (pos + i >= end || b[pos + i] != word.charAt(i)) {
                throw error(Reason.BAD_JSON, pos, "invalid literal, expected " + word);
            }
        }
        pos += word.length();
    }

    private boolean digits() {
        int start = pos;
        while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
            pos++;
        }
        return pos > start;
    }

    /** Decodes the escape at {@code pos} into the scratch buffer. */
    private void escape() throws PayloadException {
        int at = pos;
        if (pos + 1 >= end) {
            throw error(Reason.BAD_JSON, at, "string ends inside an escape");
        }
        byte c = b[pos + 1];
        pos += 2;
        switch (c) {
            case '"', '\\', '/' -> scratch.writeByte(c);
            case 'b' -> scratch.writeByte('\b');
            case 'f' -> scratch.writeByte('\f');
            case 'n' -> scratch.writeByte('\n');
            case 'r' -> scratch.writeByte('\r');
            case 't' -> scratch.writeByte('\t');
            case 'u' -> unicodeEscape(at);
            default -> throw error(Reason.BAD_JSON, at, "invalid escape");
        }
    }

    private void unicodeEscape(int at) throws PayloadException {
        int unit = hex4(at);
        int codePoint = unit;
        if (Character.isHighSurrogate((char) unit)) {
            if (pos + 1 >= end || b[pos] != '\\' || b[pos + 1] != 'u') {
                throw error(Reason.INVALID_UTF8, at, "high surrogate escape without its low surrogate");
            }
            pos += 2;
            int low = hex4(at);
            if (!Character.isLowSurrogate((char) low)) {
                throw error(Reason.INVALID_UTF8, at, "high surrogate escape without its low surrogate");
            }
            codePoint = Character.toCodePoint((char) unit, (char) low);
        } else if (Character.isLowSurrogate((char) unit)) {
            throw error(Reason.INVALID_UTF8, at, "low surrogate escape without its high surrogate");
        }
        writeUtf8(codePoint);
    }

    private int hex4(int at) throws PayloadException {
        if (pos + 4 > end) {
            throw error(Reason.BAD_JSON, at, "\\u escape needs four hex digits");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(b[pos + i], 16);
            if (digit < 0) {
                throw error(Reason.BAD_JSON, at, "\\u escape needs four hex digits");
            }
            value = value << 4 | digit;
        }
        pos += 4;
        return value;
    }

    private void writeUtf8(int cp) {
        if (cp < 0x80) {
            scratch.writeByte(cp);
        } else if (cp < 0x800) {
            scratch.writeByte(0xC0 | cp >>> 6);
            scratch.writeByte(0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            scratch.writeByte(0xE0 | cp >>> 12);
            scratch.writeByte(0x80 | cp >>> 6 & 0x3F);
            scratch.writeByte(0x80 | cp & 0x3F);
        } else {
            scratch.writeByte(0xF0 | cp >>> 18);
            scratch.writeByte(0x80 | cp >>> 12 & 0x3F);
            scratch.writeByte(0x80 | cp >>> 6 & 0x3F);
            scratch.writeByte(0x80 | cp & 0x3F);
        }
    }
}
