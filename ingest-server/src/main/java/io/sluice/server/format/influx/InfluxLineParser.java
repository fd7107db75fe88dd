package io.sluice.server.format.influx;

import io.sluice.core.labels.Utf8;
import io.sluice.server.format.ByteSpans;
import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.DecimalParser;
import io.sluice.server.format.WireReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses one line of InfluxDB line protocol, as influxdata/line-protocol's grammar (the parser of
 * InfluxDB 2 and Telegraf) defines it, into reusable spans and arrays; nothing is emitted here, so a
 * line that fails anywhere leaves no trace.
 *
 * <pre>
 * line        = { " " } [ point | comment ]            lines end with "\n", "\r\n", or the record
 * point       = measurement { "," key "=" key } " " { " " } field { "," field } [ " " { " " } timestamp ] { " " }
 * field       = key "=" ( float | int "i" | uint "u" | bool | '"' string '"' )
 * escapes     measurement: "\ " "\,"   keys and tag values: "\ " "\," "\="   strings: '\"' "\\" (and \n \r \t)
 *             a backslash before any other byte is kept as it is
 * </pre>
 *
 * Measurement, keys and tag values exclude the control bytes 0x00–0x1F and 0x7F and must be non-empty
 * and well-formed UTF-8; a string field may hold anything but an unescaped quote, newlines included.
 * Unescaped tokens are copied to a scratch buffer; tokens without escapes stay spans of the record.
 *
 * <p>Not thread-safe; owned by its {@link InfluxDecoder}.
 */
final class InfluxLineParser {
    static final int FLOAT = 0;
    static final int INTEGER = 1;
    static final int UNSIGNED = 2;
    static final int BOOLEAN = 3;
    static final int STRING = 4;

    private static final boolean[] MEASUREMENT_STOPS = stops(", ");
    private static final boolean[] KEY_STOPS = stops(",= ");
    private static final boolean[] MEASUREMENT_ESCAPES = set(", ");
    private static final boolean[] KEY_ESCAPES = set(",= ");
    private static final byte[] METRIC_NAME = "__name__".getBytes(StandardCharsets.US_ASCII);
    private static final String[] TRUE = {"t", "T", "true", "True", "TRUE"};
    private static final String[] FALSE = {"f", "F", "false", "False", "FALSE"};
    /**
     * The most tags a line may have: the duplicate check of unsorted tags is quadratic, and a head keeps
     * at most 128 labels a series by default.
     */
    static final int MAX_TAGS = 1024;
    /** Any 18-digit decimal fits in 63 bits. */
    private static final int MAX_SAFE_DIGITS = 18;

    private final DecimalParser decimal = new DecimalParser();
    private final ByteWriter scratch = new ByteWriter(256);
    /** Span 0 is the measurement; tag i has its key at 1 + 2i and its value at 2 + 2i. */
    private final ByteSpans tokens = new ByteSpans(32);
    private final ByteSpans fieldKeys = new ByteSpans(16);
    private int[] fieldKinds = new int[16];
    private double[] fieldValues = new double[16];
    private byte[] input;
    private boolean hasPoint;
    private boolean hasTimestamp;
    private long timestamp;
    private long parsedInteger;
    private int lineStart;

    private InfluxLineRejection rejection;
    private int errorPosition;
    private String errorDetail;

    /**
     * Parses the line starting at {@code start}; returns where the next line starts. Afterwards either
     * {@link #rejection()} says why the line is bad (the rest of it up to the next "\n" was skipped), or
     * {@link #hasPoint()} says whether it was a point rather than a blank line or comment.
     */
    int parse(byte[] b, int start, int end) {
        input = b;
        hasPoint = false;
        hasTimestamp = false;
        rejection = null;
        scratch.reset();
        tokens.clear();
        fieldKeys.clear();
        lineStart = start;
        int p = skipSpaces(b, start, end);
        int blankEnd = endOfLine(b, p, end);
        if (blankEnd >= 0) {
            return blankEnd;
        }
        int next = b[p] == '#' ? comment(b, p, end) : point(b, p, end);
        if (next < 0) {
            return skipRestOfLine(b, errorPosition, end);
        }
        return next;
    }

    InfluxLineRejection rejection() {
        return rejection;
    }

    /** Where the fault is: an absolute index into the record value. */
    int errorPosition() {
        return errorPosition;
    }

    /** What is wrong, a constant text. */
    String errorDetail() {
        return errorDetail;
    }

    /** Where the last line started: an absolute index into the record value. */
    int lineStart() {
        return lineStart;
    }

    boolean hasPoint() {
        return hasPoint;
    }

    boolean hasTimestamp() {
        return hasTimestamp;
    }

    /** The timestamp as written, in the configured precision. */
    long timestamp() {
        return timestamp;
    }

    ByteSpans tokens() {
        return tokens;
    }

    int tagCount() {
        return (tokens.count() - 1) / 2;
    }

    ByteSpans fieldKeys() {
        return fieldKeys;
    }

    int fieldKind(int i) {
        return fieldKinds[i];
    }

    double fieldValue(int i) {
        return fieldValues[i];
    }

    /** The array a span of {@link #tokens()} or {@link #fieldKeys()} lies in. */
    byte[] buffer(ByteSpans spans, int i) {
        return spans.buffer(i, input, scratch.buffer());
    }

    private int comment(byte[] b, int p, int end) {
        int q = p + 1;
        while (q < end && (b[q] == '\t' || !isControl(b[q]))) {
            q++;
        }
        int next = endOfLine(b, q, end);
        return next >= 0 ? next : fail(InfluxLineRejection.SYNTAX, q, "control character in a comment line");
    }

    private int point(byte[] b, int p, int end) {
        p = token(b, p, end, MEASUREMENT_STOPS, MEASUREMENT_ESCAPES, tokens);
        if (p < 0) {
            return p;
        }
        if (tokens.length(0) == 0) {
            return fail(InfluxLineRejection.SYNTAX, p, "no measurement name");
        }
        p = tags(b, p, end);
        if (p < 0) {
            return p;
        }
        if (p == end || b[p] != ' ') {
            return fail(InfluxLineRejection.SYNTAX, p, "expected a space and the fields after the measurement and tags");
        }
        p = fields(b, skipSpaces(b, p, end), end);
        if (p < 0 || (p = timestampAndEnd(b, p, end)) < 0) {
            return p;
        }
        hasPoint = true;
        return checkTags(p);
    }

    private int tags(byte[] b, int p, int end) {
        while (p < end && b[p] == ',') {
            p++;
            if (p == end || b[p] == ' ' || b[p] == '\r' || b[p] == '\n') {
                return fail(InfluxLineRejection.SYNTAX, p, "expected a tag key after the comma");
            }
            int keyStart = p;
            p = token(b, p, end, KEY_STOPS, KEY_ESCAPES, tokens);
            if (p < 0) {
                return p;
            }
            if (tokens.length(tokens.count() - 1) == 0 || p == end || b[p] != '=') {
                return fail(InfluxLineRejection.SYNTAX, keyStart, "expected tag key '=' tag value");
            }
            int valueStart = p + 1;
            p = token(b, valueStart, end, KEY_STOPS, KEY_ESCAPES, tokens);
            if (p < 0) {
                return p;
            }
            if (p == valueStart) {
                return fail(InfluxLineRejection.SYNTAX, valueStart, "empty tag value");
            }
        }
        return p;
    }

    private int fields(byte[] b, int p, int end) {
        while (true) {
            int keyStart = p;
            p = token(b, p, end, KEY_STOPS, KEY_ESCAPES, fieldKeys);
            if (p < 0) {
                return p;
            }
            if (p == keyStart || p == end || b[p] != '=') {
                return fail(InfluxLineRejection.SYNTAX, keyStart, "expected field key '=' field value");
            }
            p = fieldValue(b, p + 1, end, fieldKeys.count() - 1);
            if (p < 0 || p == end || b[p] != ',') {
                return p;
            }
            p++;
        }
    }

    /** After the last field: spaces, then the end of the line or a timestamp, spaces and the end. */
    private int timestampAndEnd(byte[] b, int p, int end) {
        int next = endOfLine(b, p, end);
        if (next >= 0) {
            return next;
        }
        if (b[p] != ' ') {
            return fail(InfluxLineRejection.SYNTAX, p, "unexpected character after a field value");
        }
        p = skipSpaces(b, p, end);
        next = endOfLine(b, p, end);
        if (next >= 0) {
            return next;
        }
        int start = p;
        while (p < end && (b[p] == '-' || isDigit(b[p]))) {
            p++;
        }
        next = endOfLine(b, skipSpaces(b, p, end), end);
        if (p == start || next < 0) {
            return fail(InfluxLineRejection.SYNTAX, start, "invalid timestamp, or text after it");
        }
        int parsed = parseSigned(b, start, p);
        if (parsed != 0) {
            return fail(parsed > 0 ? InfluxLineRejection.OUT_OF_RANGE : InfluxLineRejection.SYNTAX, start,
                    "timestamp is not a 64-bit integer");
        }
        timestamp = parsedInteger;
        hasTimestamp = true;
        return next;
    }

    /** Parses the value of field {@code field} at {@code p}; returns the position after it. */
    private int fieldValue(byte[] b, int p, int end, int field) {
        if (p == end) {
            return fail(InfluxLineRejection.SYNTAX, p, "expected a field value");
        }
        byte c = b[p];
        if (c == '"') {
            return stringValue(b, p, end, field);
        }
        int q = p;
        while (q < end && b[q] != ',' && b[q] != ' ' && b[q] != '\r' && b[q] != '\n') {
            q++;
        }
        if (c == 't' || c == 'T' || c == 'f' || c == 'F') {
            return booleanValue(b, p, q, field);
        }
        if (c == '-' || c == '.' || isDigit(c)) {
            return numberValue(b, p, q, field);
        }
        return fail(InfluxLineRejection.SYNTAX, p, "field value has an unrecognized type");
    }

    private int stringValue(byte[] b, int p, int end, int field) {
        int q = p + 1;
        boolean nonAscii = false;
        while (q < end && b[q] != '"') {
            nonAscii |= b[q] < 0;
            q += b[q] == '\\' && q + 1 < end && (b[q + 1] == '"' || b[q + 1] == '\\') ? 2 : 1;
        }
        if (q >= end) {
            return fail(InfluxLineRejection.SYNTAX, p, "string field value without its closing quote");
        }
        int invalid = nonAscii ? Utf8.firstInvalid(b, p + 1, q - p - 1) : -1;
        if (invalid >= 0) {
            return fail(InfluxLineRejection.INVALID_UTF8, invalid, "string field value is not UTF-8");
        }
        setField(field, STRING, 0);
        return q + 1;
    }

    private int booleanValue(byte[] b, int p, int q, int field) {
        for (int i = 0; i < TRUE.length; i++) {
            if (matches(b, p, q, TRUE[i])) {
                setField(field, BOOLEAN, 1);
                return q;
            }
            if (matches(b, p, q, FALSE[i])) {
                setField(field, BOOLEAN, 0);
                return q;
            }
        }
        return fail(InfluxLineRejection.SYNTAX, p, "invalid boolean field value");
    }

    private int numberValue(byte[] b, int p, int q, int field) {
        byte suffix = b[q - 1];
        if (suffix == 'i' || suffix == 'u') {
            int parsed = suffix == 'i' ? parseSigned(b, p, q - 1) : parseUnsigned(b, p, q - 1);
            if (parsed != 0) {
                return fail(parsed > 0 ? InfluxLineRejection.OUT_OF_RANGE : InfluxLineRejection.SYNTAX, p,
                        suffix == 'i' ? "invalid int64 field value" : "invalid uint64 field value");
            }
            setField(field, suffix == 'i' ? INTEGER : UNSIGNED,
                    suffix == 'i' ? (double) parsedInteger : WireReader.unsignedToDouble(parsedInteger));
            return q;
        }
        if (!decimal.parse(b, p, q - p, 0)) {
            return fail(decimal.outOfRange() ? InfluxLineRejection.OUT_OF_RANGE : InfluxLineRejection.SYNTAX, p,
                    "invalid float field value");
        }
        setField(field, FLOAT, decimal.value());
        return q;
    }

    /** Parses {@code -?digits} into {@link #parsedInteger}: 0 if it is an int64, -1 syntax, 1 out of range. */
    private int parseSigned(byte[] b, int from, int to) {
        boolean negative = from < to && b[from] == '-';
        int status = parseUnsigned(b, negative ? from + 1 : from, to);
        if (status != 0) {
            return status;
        }
        long magnitude = parsedInteger;
        if (magnitude < 0 && !(negative && magnitude == Long.MIN_VALUE)) {
            return 1;
        }
        parsedInteger = negative ? -magnitude : magnitude;
        return 0;
    }

    /** Parses {@code digits} as an unsigned 64-bit integer into {@link #parsedInteger}; statuses as above. */
    private int parseUnsigned(byte[] b, int from, int to) {
        if (from == to) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            if (!isDigit(b[i])) {
                return -1;
            }
            int d = b[i] - '0';
            // 18 digits never overflow; only past them is the exact (dividing) check needed.
            if (i - from >= MAX_SAFE_DIGITS && Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                for (int j = i + 1; j < to; j++) {
                    if (!isDigit(b[j])) {
                        return -1;
                    }
                }
                return 1;
            }
            v = v * 10 + d;
        }
        parsedInteger = v;
        return 0;
    }

    private void setField(int field, int kind, double value) {
        if (field >= fieldKinds.length) {
            fieldKinds = Arrays.copyOf(fieldKinds, 2 * fieldKinds.length);
            fieldValues = Arrays.copyOf(fieldValues, 2 * fieldValues.length);
        }
        fieldKinds[field] = kind;
        fieldValues[field] = value;
    }

    /**
     * Scans a measurement, key or tag value from {@code p} up to the first unescaped stop byte, adds its
     * span to {@code spans} (unescaped into the scratch buffer if it holds escapes) and returns where it
     * ended, or -1 if it is not UTF-8.
     */
    private int token(byte[] b, int p, int end, boolean[] stops, boolean[] escapes, ByteSpans spans) {
        int start = p;
        int scratchStart = -1;
        int copied = p; // once the token holds an escape: the bytes before this are in the scratch buffer
        int highBits = 0;
        while (true) {
            // The common case: a run of bytes that end nothing and escape nothing, one table look-up each.
            while (p < end && !stops[b[p] & 0xFF] && b[p] != '\\') {
                highBits |= b[p++];
            }
            if (p == end || b[p] != '\\') {
                break;
            }
            if (p + 1 < end && escapes[b[p + 1] & 0xFF]) {
                if (scratchStart < 0) {
                    scratchStart = scratch.length();
                    scratch.writeBytes(b, start, p - start);
                } else {
                    scratch.writeBytes(b, copied, p - copied);
                }
                scratch.writeByte(b[p + 1]);
                p += 2;
                copied = p;
            } else {
                p++; // a backslash that escapes nothing is kept as it is
            }
        }
        int index;
        if (scratchStart < 0) {
            index = spans.add(ByteSpans.INPUT, start, p - start);
        } else {
            scratch.writeBytes(b, copied, p - copied);
            index = spans.add(ByteSpans.SCRATCH, scratchStart, scratch.length() - scratchStart);
        }
        if (highBits < 0) {
            int invalid = Utf8.firstInvalid(spans.buffer(index, b, scratch.buffer()), spans.offset(index), spans.length(index));
            if (invalid >= 0) {
                return fail(InfluxLineRejection.INVALID_UTF8, start, "measurement, key or tag value is not UTF-8");
            }
        }
        return p;
    }

    /**
     * Rejects duplicate tag keys and a tag named __name__; returns {@code next} if there are none. Telegraf
     * sorts tags by key, so keys in strictly ascending order (one comparison each) prove there is no
     * duplicate; only other orders are compared pair by pair.
     */
    private int checkTags(int next) {
        if (tagCount() > MAX_TAGS) {
            hasPoint = false;
            rejection = InfluxLineRejection.TOO_MANY_TAGS;
            errorPosition = lineStart;
            errorDetail = "more than " + MAX_TAGS + " tags";
            return next;
        }
        byte[] scratchBytes = scratch.buffer();
        boolean ascending = true;
        for (int i = 1; i < tokens.count(); i += 2) {
            if (tokens.length(i) == METRIC_NAME.length && tokens.equalsBytes(i, input, scratchBytes, METRIC_NAME)) {
                return failAfterParse(next, "a tag named __name__");
            }
            ascending &= i == 1 || tokens.compare(i - 2, i, input, scratchBytes) < 0;
        }
        for (int i = 1; !ascending && i < tokens.count(); i += 2) {
            for (int j = i + 2; j < tokens.count(); j += 2) {
                if (tokens.sameBytes(i, j, input, scratchBytes)) {
                    return failAfterParse(next, "two tags with the same key");
                }
            }
        }
        return next;
    }

    private int failAfterParse(int next, String detail) {
        hasPoint = false;
        rejection = InfluxLineRejection.DUPLICATE_LABEL;
        errorPosition = lineStart;
        errorDetail = detail;
        return next; // the whole line was read: go on after it
    }

    private int fail(InfluxLineRejection reason, int position, String detail) {
        rejection = reason;
        errorPosition = position;
        errorDetail = detail;
        return -1;
    }

    /** The position after the end of line at {@code p} ("\n", "\r\n", "\r" at the end, or the end), or -1. */
    private static int endOfLine(byte[] b, int p, int end) {
        if (p == end) {
            return end;
        }
        if (b[p] == '\n') {
            return p + 1;
        }
        if (b[p] == '\r' && (p + 1 == end || b[p + 1] == '\n')) {
            return Math.min(end, p + 2);
        }
        return -1;
    }

    private static int skipRestOfLine(byte[] b, int p, int end) {
        while (p < end && b[p] != '\n') {
            p++;
        }
        return Math.min(end, p + 1);
    }

    private static int skipSpaces(byte[] b, int p, int end) {
        while (p < end && b[p] == ' ') {
            p++;
        }
        return p;
    }

    private static boolean matches(byte[] b, int from, int to, String ascii) {
        if (to - from != ascii.length()) {
            return false;
        }
        for (int i = 0; i < ascii.length(); i++) {
            if (b[from + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isControl(byte c) {
        return (c >= 0 && c < 0x20) || c == 0x7F;
    }

    /** Stop bytes of a token: the given ones, and every control byte (which includes "\r" and "\n"). */
    private static boolean[] stops(String chars) {
        boolean[] table = set(chars);
        for (int c = 0; c < 0x20; c++) {
            table[c] = true;
        }
        table[0x7F] = true;
        return table;
    }

    private static boolean[] set(String chars) {
        boolean[] table = new boolean[256];
        for (char c : chars.toCharArray()) {
            table[c] = true;
        }
        return table;
    }
}
