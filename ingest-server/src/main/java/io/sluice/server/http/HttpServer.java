package io.sluice.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: Netty with one event loop thread (epoll on Linux, NIO elsewhere) and a fixed pool
 * of worker threads ({@code http.threads}) for blocking routes,
 * i.e. the query API: that many queries run at once, more wait in the pool's queue. Health and
 * metrics answer on the event loop from published counters; nothing here touches ingestion.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    /** Largest request body (future remote-read requests are snappy-compressed protobuf, far smaller). */
    private static final int MAX_REQUEST_BYTES = 16 << 20;

    private final EventLoopGroup group;
    private final ExecutorService blockingExecutor;
    private final Channel channel;
    /** Open connections, closed on {@link #close()} so a kept-alive client sees the stop at once. */
    private final ChannelGroup connections;

    private HttpServer(EventLoopGroup group, ExecutorService blockingExecutor, Channel channel, ChannelGroup connections) {
        this.group = group;
        this.blockingExecutor = blockingExecutor;
        this.channel = channel;
        this.connections = connections;
    }

    /**
     * Listens on {@code host:port} (port 0: any free port, see {@link #address()}) with two threads for
     * blocking routes.
     *
     * @throws IOException if it cannot listen there (port in use, unknown host); the message says where
     */
    public static HttpServer start(String host, int port, Router router) throws IOException {
        return start(host, port, 2, router);
    }

    /**
     * Listens on {@code host:port} with {@code workerThreads} threads for blocking routes.
     *
     * @throws IOException if it cannot listen there (port in use, unknown host); the message says where
     */
    public static HttpServer start(String host, int port, int workerThreads, Router router) throws IOException {
        if (workerThreads < 1) {
            throw new IllegalArgumentException("workerThreads must be at least 1, was " + workerThreads);
        }
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, daemonThreads("sluice-http"), io);
        ExecutorService blocking = Executors.newFixedThreadPool(workerThreads, daemonThreads("sluice-http-worker"));
        RouterHandler handler = new RouterHandler(router, blocking);
        ChannelGroup connections = new DefaultChannelGroup("sluice-http", GlobalEventExecutor.INSTANCE);
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(channelType)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES), handler);
                        }
                    })
                    .bind(host, port).sync().channel();
            HttpServer server = new HttpServer(group, blocking, channel, connections);
            LOG.info("HTTP listening on {}:{} ({}, {} worker threads)", server.address().getHostString(),
                    server.address().getPort(), epoll ? "epoll" : "nio", workerThreads);
            return server;
        } catch (Exception e) { // bind() rethrows checked socket exceptions undeclared
            shutdown(group, blocking);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /** Where the server listens (the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops listening, closes connections and the event loop; waits up to a few seconds. Idempotent. */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdown(group, blockingExecutor);
    }

    private static void shutdown(EventLoopGroup group, ExecutorService blocking) {
        blocking.shutdownNow();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return runnable -> {
            Thread t = new Thread(runnable, prefix + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }
}
