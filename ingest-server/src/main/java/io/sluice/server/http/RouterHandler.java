package io.sluice.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatches each aggregated request to its route: 404 for an unknown path, 405 (with Allow) for a
 * known path and another method, 500 when a route throws (logged with its stack trace: a route that
 * throws is a bug). A {@link ReplyException} is the route's answer, not a failure. A streamed reply
 * ({@link Reply#streamed}) is written by its {@link BodyWriter} on the worker thread through a
 * {@link ChunkedBodyStream}. Shared by all connections.
 *
 * <p>Requests it refuses, without a stack trace in the log or a Java class name in the answer (under
 * {@code /api/} as Prometheus' error JSON, elsewhere as text): 400 for a request Netty could not
 * parse or a bad percent-escape in the URL or form body ({@code bad_data}), 414 for a request line
 * over {@value HttpServer#MAX_LINE_BYTES} bytes, 431 for headers over {@value HttpServer#MAX_HEADER_BYTES}
 * bytes, 505 for an HTTP version other than 1.0 and 1.1. After a parse error the connection closes.
 *
 * <p>With a web configuration ({@link WebConfig}) that names users or tokens, a request without valid
 * credentials answers 401 with {@code WWW-Authenticate: Basic}; new basic-auth credentials are checked
 * (bcrypt) on a worker thread under a query permit, known ones and bearer tokens on the event loop.
 *
 * <p>Blocking routes run each on its own virtual thread, working only while it holds one of the
 * {@link QueryPermits} ({@code http.threads} of them).
 */
@ChannelHandler.Sharable
final class RouterHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RouterHandler.class);

    private final Router router;
    private final Executor blockingExecutor;
    private final QueryPermits permits;
    private final WebAccess web;

    RouterHandler(Router router, Executor blockingExecutor, QueryPermits permits, WebAccess web) {
        this.router = router;
        this.blockingExecutor = blockingExecutor;
        this.permits = permits;
        this.web = web;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        String rawPath = rawPath(request.uri());
        if (request.decoderResult().isFailure()) {
            ConnectionGuard guard = ctx.channel().attr(HttpServer.GUARD).get();
            String pathForFormat = guard != null && guard.apiPath() ? Reply.API_PREFIX : rawPath; // the URI is unknown
            sendAndClose(ctx, protocolError(pathForFormat, request.decoderResult().cause()));
            return;
        }
        HttpVersion version = request.protocolVersion();
        if (!version.equals(HttpVersion.HTTP_1_1) && !version.equals(HttpVersion.HTTP_1_0)) {
            sendAndClose(ctx, Reply.error(rawPath, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "bad_data",
                    "HTTP version " + version.text() + " not supported: HTTP/1.1 and HTTP/1.0 are"));
            return;
        }
        String path;
        try {
            path = new QueryStringDecoder(request.uri()).path();
        } catch (IllegalArgumentException e) {
            send(ctx, request, Reply.error(rawPath, HttpResponseStatus.BAD_REQUEST, "bad_data",
                    MalformedRequestException.of("URL path", rawPath, e).getMessage()));
            return;
        }
        WebConfig config = web.current();
        switch (web.check(config, path, request)) {
            case OK -> route(ctx, request, path);
            case DENIED -> send(ctx, request, unauthorized(rawPath));
            case VERIFY -> verifyThenRoute(ctx, request, path, rawPath, config);
        }
    }

    /** Runs bcrypt for new credentials on a worker thread, under a query permit (so at most http.threads at once). */
    private void verifyThenRoute(ChannelHandlerContext ctx, FullHttpRequest request, String path, String rawPath, WebConfig config) {
        FullHttpRequest retained = request.retain();
        try {
            blockingExecutor.execute(() -> {
                try {
                    boolean ok;
                    try {
                        permits.acquire();
                    } catch (InterruptedException e) {
                        ctx.close();
                        return;
                    }
                    try {
                        ok = web.verify(config, retained);
                    } finally {
                        permits.release();
                    }
                    if (ok) {
                        route(ctx, retained, path);
                    } else {
                        send(ctx, retained, unauthorized(rawPath));
                    }
                } finally {
                    retained.release();
                }
            });
        } catch (RejectedExecutionException e) {
            retained.release();
            send(ctx, request, Reply.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "server is stopping"));
        }
    }

    private static Reply unauthorized(String rawPath) {
        Reply body = Reply.error(rawPath, HttpResponseStatus.UNAUTHORIZED, "unauthorized", "Unauthorized");
        return new Reply(body.status(), body.contentType(), body.body(), Map.of(HttpHeaderNames.WWW_AUTHENTICATE.toString(),
                "Basic realm=\"sluice\""));
    }

    /** Answers an authorized request; any thread. */
    private void route(ChannelHandlerContext ctx, FullHttpRequest request, String path) {
        Router.Entry entry = router.find(request.method(), path);
        if (entry == null) {
            send(ctx, request, unrouted(path, request));
        } else if (!entry.blocking()) {
            Reply reply = answer(entry.route(), request);
            send(ctx, request, reply.isStreamed()
                    ? internalError(request, new IllegalStateException("a streamed reply from a route on the event loop"))
                    : reply);
        } else {
            FullHttpRequest retained = request.retain();
            try {
                blockingExecutor.execute(() -> {
                    try {
                        permits.acquire();
                    } catch (InterruptedException e) { // the server is stopping
                        retained.release();
                        ctx.close();
                        return;
                    }
                    try {
                        ClientConnection.set(ctx.channel());
                        Reply reply;
                        try {
                            reply = answer(entry.route(), retained);
                        } finally {
                            ClientConnection.clear();
                        }
                        if (reply.isStreamed()) {
                            stream(ctx, permits, retained, reply);
                        } else {
                            send(ctx, retained, reply);
                        }
                    } finally {
                        permits.release();
                        retained.release();
                    }
                });
            } catch (RejectedExecutionException e) {
                retained.release();
                send(ctx, request, Reply.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "server is stopping"));
            }
        }
    }

    private Reply unrouted(String path, FullHttpRequest request) {
        Set<String> allowed = router.allowedMethods(path);
        if (allowed.isEmpty()) {
            return Reply.text(HttpResponseStatus.NOT_FOUND, "404 page not found: " + path);
        }
        String allow = String.join(", ", allowed);
        return new Reply(HttpResponseStatus.METHOD_NOT_ALLOWED, Reply.TEXT,
                ("method " + request.method() + " not allowed for " + path + "; allowed: " + allow + "\n")
                        .getBytes(StandardCharsets.UTF_8), Map.of(HttpHeaderNames.ALLOW.toString(), allow));
    }

    private static Reply answer(Route route, FullHttpRequest request) {
        try {
            Reply reply = route.handle(request);
            return reply != null ? reply : internalError(request, new IllegalStateException("the route returned no reply"));
        } catch (ReplyException e) {
            return e.reply();
        } catch (MalformedRequestException e) {
            return Reply.error(rawPath(request.uri()), HttpResponseStatus.BAD_REQUEST, "bad_data", e.getMessage());
        } catch (Exception | AssertionError | StackOverflowError e) {
            return internalError(request, e); // an Error escaping would end the worker with no reply: the client would hang
        }
    }

    /** A route's bug: logged with its stack trace, answered with its message only (no class names). */
    private static Reply internalError(FullHttpRequest request, Throwable e) {
        LOG.error("{} {} failed", request.method(), request.uri(), e);
        String message = e.getMessage() != null ? e.getMessage() : "unexpected " + e.getClass().getSimpleName();
        return Reply.error(rawPath(request.uri()), HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal",
                "internal error: " + message);
    }

    /** The answer to a request the HTTP decoder refused. */
    private static Reply protocolError(String rawPath, Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return Reply.error(rawPath, HttpResponseStatus.REQUEST_URI_TOO_LONG, "bad_data",
                    "request line longer than " + HttpServer.MAX_LINE_BYTES + " bytes");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return Reply.error(rawPath, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "bad_data",
                    "request headers longer than " + HttpServer.MAX_HEADER_BYTES + " bytes");
        }
        LOG.debug("malformed HTTP request: {}", cause.toString());
        return Reply.error(rawPath, HttpResponseStatus.BAD_REQUEST, "bad_data", "malformed HTTP request");
    }

    /** The path of a request URI as sent (not decoded), for choosing the error format; "" when there is none. */
    static String rawPath(String uri) {
        if (uri == null) {
            return "";
        }
        int end = uri.length();
        int q = uri.indexOf('?');
        if (q >= 0) {
            end = q;
        }
        int h = uri.indexOf('#');
        if (h >= 0 && h < end) {
            end = h;
        }
        return uri.substring(0, end);
    }

    /** Writes {@code reply} and closes the connection (after a request that leaves the stream unusable). */
    static void sendAndClose(ChannelHandlerContext ctx, Reply reply) {
        FullHttpResponse response = response(reply);
        HttpUtil.setKeepAlive(response, false);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private static FullHttpResponse response(Reply reply) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                Unpooled.wrappedBuffer(reply.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        HttpUtil.setContentLength(response, reply.body().length);
        reply.headers().forEach((name, value) -> response.headers().set(name, value));
        return response;
    }

    /**
     * Runs a streamed reply's writer on this (worker) thread. Before the first chunk left, a failure
     * still becomes a proper error reply; afterwards the connection is cut without the last chunk.
     */
    private static void stream(ChannelHandlerContext ctx, QueryPermits permits, FullHttpRequest request, Reply reply) {
        ChunkedBodyStream out = new ChunkedBodyStream(ctx, permits, reply, HttpUtil.isKeepAlive(request));
        Reply failure;
        try {
            reply.stream().writeTo(out);
            out.finish();
            return;
        } catch (ReplyException e) {
            failure = e.reply();
            if (out.isCommitted()) {
                LOG.warn("{} {}: stopped a streamed reply after its first chunk: {}", request.method(), request.uri(),
                        e.getMessage());
            }
        } catch (IOException e) {
            LOG.debug("{} {}: streaming stopped: {}", request.method(), request.uri(), e.toString());
            out.abort();
            return;
        } catch (Exception | AssertionError e) {
            failure = internalError(request, e);
        }
        if (out.isCommitted()) {
            out.abort();
        } else {
            send(ctx, request, failure);
        }
    }

    /** Writes the reply; any thread (Netty hands writes from other threads to the channel's event loop). */
    private static void send(ChannelHandlerContext ctx, FullHttpRequest request, Reply reply) {
        FullHttpResponse response = response(reply);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        ChannelFuture written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
