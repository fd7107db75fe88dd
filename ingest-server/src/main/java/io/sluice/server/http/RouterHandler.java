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
 * known path and another method, 400 for a request Netty could not parse, 500 when a route throws
 * (logged with its stack trace: a route that throws is a bug). A {@link ReplyException} is the
 * route's answer, not a failure. A streamed reply ({@link Reply#streamed}) is written by its
 * {@link BodyWriter} on the worker thread through a {@link ChunkedBodyStream}. Shared by all connections.
 */
@ChannelHandler.Sharable
final class RouterHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RouterHandler.class);

    private final Router router;
    private final Executor blockingExecutor;

    RouterHandler(Router router, Executor blockingExecutor) {
        this.router = router;
        this.blockingExecutor = blockingExecutor;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            send(ctx, request, Reply.text(HttpResponseStatus.BAD_REQUEST, "bad request: " + request.decoderResult().cause()));
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
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
                        ClientConnection.set(ctx.channel());
                        Reply reply;
                        try {
                            reply = answer(entry.route(), retained);
                        } finally {
                            ClientConnection.clear();
                        }
                        if (reply.isStreamed()) {
                            stream(ctx, retained, reply);
                        } else {
                            send(ctx, retained, reply);
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
        } catch (Exception | AssertionError | StackOverflowError e) {
            return internalError(request, e); // an Error escaping would end the worker with no reply: the client would hang
        }
    }

    private static Reply internalError(FullHttpRequest request, Throwable e) {
        LOG.error("{} {} failed", request.method(), request.uri(), e);
        return Reply.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
    }

    /**
     * Runs a streamed reply's writer on this (worker) thread. Before the first chunk left, a failure
     * still becomes a proper error reply; afterwards the connection is cut without the last chunk.
     */
    private static void stream(ChannelHandlerContext ctx, FullHttpRequest request, Reply reply) {
        ChunkedBodyStream out = new ChunkedBodyStream(ctx, reply, HttpUtil.isKeepAlive(request));
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
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                Unpooled.wrappedBuffer(reply.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        HttpUtil.setContentLength(response, reply.body().length);
        reply.headers().forEach((name, value) -> response.headers().set(name, value));
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
