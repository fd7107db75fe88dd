package io.sluice.server.format;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a remote-write {@code Content-Type} value (RFC 9110 media type with parameters) in place, as
 * the remote-write 2.0 specification defines its three values:
 * <pre>
 *   application/x-protobuf                                         1.0
 *   application/x-protobuf;proto=prometheus.WriteRequest           1.0
 *   application/x-protobuf;proto=io.prometheus.write.v2.Request    2.0
 * </pre>
 * Optional white space around {@code ;} and a quoted parameter value are accepted; other parameters
 * are ignored. Allocates nothing.
 */
final class RemoteWriteContentType {
    static final int UNSUPPORTED = 0;
    static final int V1 = 1;
    static final int V2 = 2;

    private static final byte[] MEDIA_TYPE = ascii("application/x-protobuf");
    private static final byte[] PROTO = ascii("proto");
    private static final byte[] V1_MESSAGE = ascii("prometheus.WriteRequest");
    private static final byte[] V2_MESSAGE = ascii("io.prometheus.write.v2.Request");
    private static final int MAX_PRINTED_BYTES = 120;

    private RemoteWriteContentType() {
    }

    /** {@link #V1}, {@link #V2} or {@link #UNSUPPORTED}. */
    static int versionOf(byte[] value) {
        int end = value.length;
        int i = skipWhiteSpace(value, 0, end);
        int typeEnd = tokenEnd(value, i, end);
        if (!equalsIgnoreCase(value, i, typeEnd, MEDIA_TYPE)) {
            return UNSUPPORTED;
        }
        int version = V1;
        i = skipWhiteSpace(value, typeEnd, end);
        while (i < end) {
            if (value[i] != ';') {
                return UNSUPPORTED;
            }
            i = skipWhiteSpace(value, i + 1, end);
            if (i == end) {
                break; // a trailing ';' is allowed: parameters are "*( OWS ';' OWS [ parameter ] )"
            }
            int nameEnd = tokenEnd(value, i, end);
            if (nameEnd == i || nameEnd == end || value[nameEnd] != '=') {
                return UNSUPPORTED;
            }
            boolean isProto = equalsIgnoreCase(value, i, nameEnd, PROTO);
            int valueStart = nameEnd + 1;
            boolean quoted = valueStart < end && value[valueStart] == '"';
            int valueEnd = quoted ? quotedEnd(value, valueStart, end) : tokenEnd(value, valueStart, end);
            if (valueEnd < 0 || valueEnd == valueStart) {
                return UNSUPPORTED;
            }
            if (isProto) {
                int from = quoted ? valueStart + 1 : valueStart;
                int to = quoted ? valueEnd - 1 : valueEnd;
                version = equals(value, from, to, V1_MESSAGE) ? V1 : equals(value, from, to, V2_MESSAGE) ? V2 : UNSUPPORTED;
            }
            i = skipWhiteSpace(value, valueEnd, end);
        }
        return version;
    }

    /** The value for an error message: printable ASCII, cut to 120 bytes (allocates: rejection path only). */
    static String printable(byte[] value) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(value.length, MAX_PRINTED_BYTES); i++) {
            int b = value[i] & 0xFF;
            out.append(b >= 0x20 && b < 0x7F ? (char) b : '?');
        }
        return value.length > MAX_PRINTED_BYTES ? out.append("...").toString() : out.toString();
    }

    private static int skipWhiteSpace(byte[] b, int i, int end) {
        while (i < end && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        return i;
    }

    /** The end of an RFC 9110 token (or of type/subtype, which also holds '/'). */
    private static int tokenEnd(byte[] b, int i, int end) {
        while (i < end && b[i] > ' ' && b[i] < 0x7F && b[i] != ';' && b[i] != '=' && b[i] != '"' && b[i] != ',') {
            i++;
        }
        return i;
    }

    /** The index after the closing quote of a quoted-string starting at {@code i}, or -1. */
    private static int quotedEnd(byte[] b, int i, int end) {
        for (int j = i + 1; j < end; j++) {
            if (b[j] == '\\') {
                j++;
            } else if (b[j] == '"') {
                return j + 1;
            }
        }
        return -1;
    }

    private static boolean equalsIgnoreCase(byte[] b, int from, int to, byte[] expected) {
        if (to - from != expected.length) {
            return false;
        }
        for (int k = 0; k < expected.length; k++) {
            int c = b[from + k];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != expected[k]) {
                return false;
            }
        }
        return true;
    }

    private static boolean equals(byte[] b, int from, int to, byte[] expected) {
        return Arrays.equals(b, from, to, expected, 0, expected.length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
