package io.sluice.server.http;

import io.sluice.server.config.HttpOptions;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The timeouts of one connection, in two pipeline positions: {@link #bytes()} first (it sees the raw
 * bytes, so the header timer starts at a request's first byte and write progress is seen as the socket
 * takes bytes) and {@link #messages()} right after the HTTP codec (it sees where requests and responses
 * begin and end). {@link HttpServer}'s sweep calls {@link #expired} about once a second; every field
 * is touched only on the connection's event loop.
 *
 * <ul>
 * <li>Between requests (none in progress): closed after {@code idle} without a byte read.</li>
 * <li>Reading a request: closed when its headers are not complete {@code header} after its first
 * byte, or the whole request not {@code request} after it.</li>
 * <li>Answering: never while the route works (a long query is the query limits' business); closed
 * when response bytes wait in the connection's buffer and the client took none for {@code idle}
 * (a client that stopped reading).</li>
 * </ul>
 */
final class ConnectionGuard {
    /** Why {@link #expired} closes a connection; the label of {@code sluice_http_connections_closed_total}. */
    enum Expiry { IDLE, HEADER_TIMEOUT, REQUEST_TIMEOUT, STALLED_CLIENT, EVICTED }

    private final long idleNs;
    private final long headerNs;
    private final long requestNs;
    private final Bytes bytes = new Bytes();
    private final Messages messages = new Messages();

    private long lastReadNs;
    private boolean reading;
    private boolean headersRead;
    private long requestStartNs;
    private int unanswered;
    /** Whether the request being read names a path under {@code /api/} (seen in its first bytes). */
    private boolean apiPath;
    /** When the socket last took bytes, or when bytes were written to an empty buffer. */
    private long lastWriteProgressNs;

    ConnectionGuard(HttpOptions options, long nowNs) {
        this.idleNs = options.idleTimeoutMs() * 1_000_000;
        this.headerNs = options.headerTimeoutMs() * 1_000_000;
        this.requestNs = options.requestTimeoutMs() * 1_000_000;
        this.lastReadNs = nowNs;
        this.lastWriteProgressNs = nowNs;
    }

    ChannelDuplexHandler bytes() {
        return bytes;
    }

    ChannelDuplexHandler messages() {
        return messages;
    }

    /**
     * When {@code channel} became idle (no request being read or answered, nothing queued to send), or
     * -1 while it is not. On its event loop.
     */
    long idleSinceNs(Channel channel) {
        return reading || unanswered > 0 || pendingBytes(channel) > 0 ? -1 : lastReadNs;
    }

    /** Why {@code channel} is over a timeout at {@code nowNs}, or null. On its event loop. */
    Expiry expired(Channel channel, long nowNs) {
        if (reading) {
            if (!headersRead && nowNs - requestStartNs > headerNs) {
                return Expiry.HEADER_TIMEOUT;
            }
            if (nowNs - requestStartNs > requestNs) {
                return Expiry.REQUEST_TIMEOUT;
            }
            return null;
        }
        if (pendingBytes(channel) > 0) {
            return nowNs - lastWriteProgressNs > idleNs ? Expiry.STALLED_CLIENT : null;
        }
        if (unanswered == 0 && nowNs - lastReadNs > idleNs) {
            return Expiry.IDLE;
        }
        return null;
    }

    /**
     * Whether the request whose first bytes the server read last names a path under {@code /api/},
     * for answering a request the decoder refused (its path is unknown then) in the right format.
     */
    boolean apiPath() {
        return apiPath;
    }

    /** {@code METHOD /api/...} at the start of {@code buf}. */
    private static boolean isApiPath(ByteBuf buf) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        int space = buf.indexOf(start, Math.min(end, start + 32), (byte) ' ');
        if (space < 0 || space + 1 + Reply.API_PREFIX.length() > end) {
            return false;
        }
        for (int i = 0; i < Reply.API_PREFIX.length(); i++) {
            if (buf.getByte(space + 1 + i) != Reply.API_PREFIX.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static long pendingBytes(Channel channel) {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    /** First in the pipeline: raw bytes in and out. */
    private final class Bytes extends ChannelDuplexHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf buf && buf.isReadable()) {
                long now = System.nanoTime();
                lastReadNs = now;
                if (!reading) {
                    reading = true;
                    headersRead = false;
                    requestStartNs = now;
                    apiPath = isApiPath(buf);
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (pendingBytes(ctx.channel()) == 0) {
                lastWriteProgressNs = System.nanoTime();
            }
            ChannelPromise p = promise.unvoid();
            p.addListener(f -> {
                if (f.isSuccess()) {
                    lastWriteProgressNs = System.nanoTime();
                }
            });
            ctx.write(msg, p);
        }
    }

    /** After the HTTP codec: where requests and responses begin and end. */
    private final class Messages extends ChannelDuplexHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                headersRead = true;
            }
            if (msg instanceof LastHttpContent) {
                reading = false;
                unanswered++;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof LastHttpContent) {
                unanswered = Math.max(0, unanswered - 1);
                lastReadNs = System.nanoTime(); // the idle time starts after the answer
            }
            ctx.write(msg, promise);
        }
    }
}
