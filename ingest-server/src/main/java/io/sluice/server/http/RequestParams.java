package io.sluice.server.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters of a request as Prometheus' API reads them: the URL query string, plus for a POST
 * with {@code Content-Type: application/x-www-form-urlencoded} the form in the body (body values
 * first, as Go's {@code Request.Form} orders them). A name may repeat ({@code match[]}). A semicolon is
 * an ordinary character (PromQL regexes may hold one), not a separator.
 */
public final class RequestParams {
    /** Parameters read per source; more are ignored (Netty's decoder stops there). */
    private static final int MAX_PARAMS = 10_000;
    private final String path;
    private final Map<String, List<String>> values;

    private RequestParams(String path, Map<String, List<String>> values) {
        this.path = path;
        this.values = values;
    }

    /**
     * The parameters of {@code request}.
     *
     * @throws MalformedRequestException if the URL or the form body holds a bad percent-escape (a 400)
     */
    public static RequestParams of(FullHttpRequest request) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        if (request.method().equals(HttpMethod.POST) && contentType.startsWith("application/x-www-form-urlencoded")) {
            String body = request.content().toString(StandardCharsets.UTF_8);
            try {
                new QueryStringDecoder(body, StandardCharsets.UTF_8, false, MAX_PARAMS, true).parameters()
                        .forEach((name, list) -> values.computeIfAbsent(name, n -> new ArrayList<>()).addAll(list));
            } catch (IllegalArgumentException e) {
                throw MalformedRequestException.of("form body", body, e);
            }
        }
        try {
            QueryStringDecoder url = new QueryStringDecoder(request.uri(), StandardCharsets.UTF_8, true, MAX_PARAMS, true);
            url.parameters().forEach((name, list) -> values.computeIfAbsent(name, n -> new ArrayList<>()).addAll(list));
            return new RequestParams(url.path(), values);
        } catch (IllegalArgumentException e) {
            throw MalformedRequestException.of("URL", request.uri(), e);
        }
    }

    /** The decoded path. */
    public String path() {
        return path;
    }

    /** The first value of {@code name}, or null when absent. */
    public String first(String name) {
        List<String> list = values.get(name);
        return list == null || list.isEmpty() ? null : list.getFirst();
    }

    /** Every value of {@code name} in order (empty when absent). */
    public List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }
}
