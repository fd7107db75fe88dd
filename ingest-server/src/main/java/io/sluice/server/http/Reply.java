package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a route answers: status, content type, the whole body and any extra headers. Small bodies
 * built in memory are all the health and metrics endpoints need.
 */
public record Reply(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {
    static final String TEXT = "text/plain; charset=utf-8";

    public Reply {
        headers = Map.copyOf(headers);
    }

    public Reply(HttpResponseStatus status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    /** A plain-text reply; a trailing newline is added, as Prometheus' own endpoints do. */
    public static Reply text(HttpResponseStatus status, String text) {
        return new Reply(status, TEXT, (text + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
