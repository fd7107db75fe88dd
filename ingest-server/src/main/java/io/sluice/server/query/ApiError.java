package io.sluice.server.query;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.server.http.Reply;
import io.sluice.server.http.ReplyException;

/**
 * An error answered with Prometheus' error JSON,
 * {@code {"status":"error","errorType":"bad_data","error":"..."}}: 400 {@code bad_data} for a bad
 * parameter or an unsupported query, 422 {@code execution} for a query over a limit.
 */
final class ApiError extends ReplyException {
    static final String JSON = Reply.JSON;

    private final String errorType;

    private ApiError(HttpResponseStatus status, String errorType, String message) {
        super(Reply.apiError(status, errorType, message), message);
        this.errorType = errorType;
    }

    /** 400, {@code bad_data}. */
    static ApiError badData(String message) {
        return new ApiError(HttpResponseStatus.BAD_REQUEST, "bad_data", message);
    }

    /** 422, {@code execution}: the query is valid but too large to answer. */
    static ApiError execution(String message) {
        return new ApiError(HttpResponseStatus.UNPROCESSABLE_ENTITY, "execution", message);
    }

    /** 503, {@code unavailable}: the head is still loading (Prometheus answers so while its TSDB starts). */
    static ApiError unavailable(String message) {
        return new ApiError(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable", message);
    }

    /** 503, {@code timeout}: the query ran past its deadline ({@code query.timeout} or {@code timeout}). */
    static ApiError timeout(String message) {
        return new ApiError(HttpResponseStatus.SERVICE_UNAVAILABLE, "timeout", message);
    }

    /** 499 (nginx' "client closed request", as Prometheus answers), {@code canceled}. */
    static ApiError canceled(String message) {
        return new ApiError(HttpResponseStatus.valueOf(499, "Client Closed Request"), "canceled", message);
    }

    String errorType() {
        return errorType;
    }
}
