package io.sluice.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The body of a streamed reply as an {@link OutputStream}: bytes gather in a 64 KiB buffer, each full
 * buffer leaves as one HTTP chunk. The response head goes out with the first chunk, so until then
 * ({@link #isCommitted()} false) the route may still answer with an error instead.
 *
 * <p>Backpressure: when the connection's outbound buffer is above its high-water mark (while the
 * answer streams {@link HttpServer#STREAM_WRITE_BUFFER_HIGH_BYTES}, several chunks, so producing the next
 * chunk overlaps sending the last; then back to {@link HttpServer#WRITE_BUFFER_HIGH_BYTES}) the writer
 * waits for the chunk it just wrote, without
 * its query permit ({@link QueryPermits#awaitClient}): a client that reads slowly or not at all costs
 * this buffer, the buffered chunks and a parked virtual thread, never a query slot. A closed connection
 * (the idle timeout closes one whose client took nothing for {@code http.idle-timeout}) makes the write
 * throw {@link IOException} (the caller then closes the connection).
 *
 * <p>Used by one worker thread (the route's); Netty hands the writes to the channel's event loop.
 */
final class ChunkedBodyStream extends OutputStream {
    static final int CHUNK_BYTES = 64 << 10;
    private final ChannelHandlerContext ctx;
    private final QueryPermits permits;
    private final Reply reply;
    private final boolean keepAlive;
    private final byte[] buffer = new byte[CHUNK_BYTES];
    private int used;
    private boolean committed;
    private boolean finished;

    ChunkedBodyStream(ChannelHandlerContext ctx, QueryPermits permits, Reply reply, boolean keepAlive) {
        this.ctx = ctx;
        this.permits = permits;
        this.reply = reply;
        this.keepAlive = keepAlive;
    }

    /** True once the response head left: an error can no longer change the status. */
    boolean isCommitted() {
        return committed;
    }

    @Override
    public void write(int b) throws IOException {
        if (used == buffer.length) {
            sendChunk();
        }
        buffer[used++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (used == buffer.length) {
                sendChunk();
            }
            int n = Math.min(len, buffer.length - used);
            System.arraycopy(b, off, buffer, used, n);
            used += n;
            off += n;
            len -= n;
        }
    }

    /** Sends what is buffered as a chunk (a no-op when empty). */
    @Override
    public void flush() throws IOException {
        if (used > 0) {
            sendChunk();
        }
    }

    /** Sends the rest and the terminating chunk. */
    void finish() throws IOException {
        if (finished) {
            return;
        }
        flush();
        commit();
        finished = true;
        ChannelFuture last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        ctx.channel().config().setWriteBufferWaterMark(HttpServer.WRITE_BUFFER_MARK);
        if (!keepAlive) {
            last.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Ends a committed response without its terminating chunk, so the client sees a broken transfer. */
    void abort() {
        finished = true;
        ctx.close();
    }

    private void sendChunk() throws IOException {
        if (!ctx.channel().isActive()) {
            throw new IOException("the client closed the connection");
        }
        commit();
        ByteBuf chunk = ctx.alloc().buffer(used);
        chunk.writeBytes(buffer, 0, used);
        used = 0;
        ChannelFuture written = ctx.writeAndFlush(new DefaultHttpContent(chunk));
        if (!ctx.channel().isWritable()) {
            permits.awaitClient(written);
        }
    }

    private void commit() {
        if (committed) {
            return;
        }
        committed = true;
        ctx.channel().config().setWriteBufferWaterMark(HttpServer.STREAM_WRITE_BUFFER_MARK);
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, reply.status());
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        reply.headers().forEach((name, value) -> head.headers().set(name, value));
        HttpUtil.setTransferEncodingChunked(head, true);
        HttpUtil.setKeepAlive(head, keepAlive);
        ctx.write(head);
    }
}
