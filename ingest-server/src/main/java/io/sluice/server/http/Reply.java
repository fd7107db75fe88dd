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
