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
 * (logged with its stack trace: a route that throws is a bug). Shared by all connections.
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
            send(ctx, request, answer(entry.route(), request));
        } else {
            FullHttpRequest retained = request.retain();
            try {
                blockingExecutor.execute(() -> {
                    try {
                        send(ctx, retained, answer(entry.route(), retained));
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
            return route.handle(request);
        } catch (Exception | AssertionError e) {
            LOG.error("{} {} failed", request.method(), request.uri(), e);
            return Reply.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
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
