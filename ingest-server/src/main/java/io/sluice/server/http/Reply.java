package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a route answers: status, content type, the whole body and any extra headers; or, for a
 * large answer, a {@link BodyWriter} that streams the body in HTTP chunks ({@link #streamed}).
 *
 * @param body   the whole body; empty when {@code stream} is set
 * @param stream null for a body in memory; else what writes the body (only on blocking routes)
 */
public record Reply(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers,
                    BodyWriter stream) {
    static final String TEXT = "text/plain; charset=utf-8";
    /** The content type of Prometheus' API answers, errors included. */
    public static final String JSON = "application/json";
    /** Paths whose errors are Prometheus' error JSON ({@link #apiError}), not text. */
    static final String API_PREFIX = "/api/";
    private static final byte[] EMPTY = new byte[0];

    public Reply {
        headers = Map.copyOf(headers);
    }

    public Reply(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {
        this(status, contentType, body, headers, null);
    }

    public Reply(HttpResponseStatus status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    /** A plain-text reply; a trailing newline is added, as Prometheus' own endpoints do. */
    public static Reply text(HttpResponseStatus status, String text) {
        return new Reply(status, TEXT, (text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Prometheus' error answer, {@code {"status":"error","errorType":"bad_data","error":"..."}}. The
     * message is escaped as Go's encoding/json escapes (so {@code <}, {@code >}, {@code &}, U+2028 and
     * U+2029 too).
     */
    public static Reply apiError(HttpResponseStatus status, String errorType, String message) {
        StringBuilder json = new StringBuilder(64 + message.length()).append("{\"status\":\"error\",\"errorType\":");
        jsonString(json, errorType).append(",\"error\":");
        jsonString(json, message).append('}');
        return new Reply(status, JSON, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #apiError} for a path under {@code /api/}, else {@link #text}: how the server answers a request it refuses. */
    static Reply error(String path, HttpResponseStatus status, String errorType, String message) {
        return path != null && path.startsWith(API_PREFIX) ? apiError(status, errorType, message) : text(status, message);
    }

    private static StringBuilder jsonString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /**
     * A 200 reply whose body {@code writer} streams with chunked transfer encoding. Only for routes
     * added with {@link Router#blocking}: the writer blocks while the client reads.
     */
    public static Reply streamed(String contentType, Map<String, String> headers, BodyWriter writer) {
        return new Reply(HttpResponseStatus.OK, contentType, EMPTY, headers, writer);
    }

    public boolean isStreamed() {
        return stream != null;
    }
}
