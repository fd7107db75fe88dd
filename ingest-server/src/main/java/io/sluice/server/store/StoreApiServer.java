package io.sluice.server.store;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.buffer.AdaptiveByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector;
import io.grpc.protobuf.services.HealthStatusManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.config.StoreApiOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Thanos StoreAPI gRPC server (grpc-java on its shaded Netty): {@code thanos.Store},
 * {@code thanos.info.Info} and the standard {@code grpc.health.v1.Health}, on its own port.
 *
 * <p>Threads: one acceptor ({@code storeapi-accept}), one event loop ({@code storeapi-io}) that
 * frames and writes, and {@code threads} call threads ({@code storeapi-N}) that read the head and
 * encode the responses (a {@code Series} call holds one while it streams). Memory: per call thread
 * one encoder array holding the response being built (a batch of up to {@code response_batch_size}
 * series, sent once it passes 1 MiB; kept for the next call up to 4 MiB) and, per call, up to 1 MiB of
 * sent responses waiting in gRPC's buffers to be written; the head query's entries (the served label
 * bytes of each matching series, sorted) for the call's length. Thread-safety: start on one thread;
 * {@link #close()} from any.
 */
public final class StoreApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreApiServer.class);
    /** The leak detection level of gRPC's relocated Netty; unset, the StoreAPI server turns it off. */
    static final String LEAK_DETECTION_PROPERTY = "io.grpc.netty.shaded.io.netty.leakDetection.level";

    private final Server server;
    private final HealthStatusManager health;
    private final EventLoopGroup boss;
    private final EventLoopGroup worker;
    private final ExecutorService executor;

    private StoreApiServer(Server server, HealthStatusManager health, EventLoopGroup boss, EventLoopGroup worker,
                           ExecutorService executor) {
        this.server = server;
        this.health = health;
        this.boss = boss;
        this.worker = worker;
        this.executor = executor;
    }

    /**
     * Binds and starts.
     *
     * @param notReady why the head cannot answer yet (replaying), or null; calls get UNAVAILABLE meanwhile
     * @throws IOException if the port cannot be bound or the TLS files cannot be read
     */
    public static StoreApiServer start(StoreApiOptions options, Head head, QueryOptions limits, int threads,
                                       MeterRegistry registry, Supplier<String> notReady) throws IOException {
        StoreApiMetrics metrics = new StoreApiMetrics(registry);
        StoreLabels labels = new StoreLabels(options.externalLabels());
        HealthStatusManager health = new HealthStatusManager();
        // epoll where Netty's native transport loads (Linux x86_64/aarch64): its event loop costs less
        // per byte written than NIO's selector; NIO elsewhere
        boolean epoll = Epoll.isAvailable();
        if (System.getProperty(LEAK_DETECTION_PROPERTY) == null) {
            // gRPC's own Netty: its buffers never reach Sluice's code (messages are handed over as
            // streams), and sampling them for leaks (a stack trace per 128 buffers: one per DATA frame
            // header) cost ~4 % of the event loop. The property turns it back on.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        IoHandlerFactory ioHandlers = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, daemonThreads("storeapi-accept"), ioHandlers);
        EventLoopGroup worker = new MultiThreadIoEventLoopGroup(1, daemonThreads("storeapi-io"), ioHandlers);
        ExecutorService executor = Executors.newFixedThreadPool(threads, daemonThreads("storeapi"));
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(options.host(), options.port()))
                .channelType(channel)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(worker)
                .executor(executor)
                // Netty's adaptive allocator for the connections' buffers instead of gRPC's pooled one: a
                // Series call hands gRPC a ~200 KB message at a time from its own thread and the event
                // loop frees it, so the pooled allocator's blocks emptied and were made anew (allocated
                // and zeroed, ~9 % of the call thread); the adaptive one keeps its chunks for reuse
                .withChildOption(ChannelOption.ALLOCATOR, new AdaptiveByteBufAllocator())
                .maxInboundMessageSize(options.maxMessageBytes())
                // Thanos' gRPC clients ping every 10 s of silence on an open call; grpc-java's default
                // (one ping per 5 min) would answer that with GOAWAY "too_many_pings"
                .permitKeepAliveTime(5, TimeUnit.SECONDS)
                .permitKeepAliveWithoutCalls(true)
                .addService(new StoreService(head, limits, labels, metrics, notReady).bindService())
                .addService(new InfoService(head, options.externalLabels(), metrics))
                .addService(health.getHealthService());
        Server server;
        try {
            if (options.tlsCertFile() != null) {
                builder.sslContext(GrpcSslContexts.forServer(options.tlsCertFile().toFile(), options.tlsKeyFile().toFile())
                        .build());
            }
            server = builder.build().start();
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            worker.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new IOException("StoreAPI gRPC server cannot start on " + options.host() + ":" + options.port()
                    + ": " + e.getMessage(), e);
        }
        health.setStatus("", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
        StoreApiServer started = new StoreApiServer(server, health, boss, worker, executor);
        LOG.info("Thanos StoreAPI (gRPC{}, {}) listening on {}:{}, external labels {}",
                options.tlsCertFile() != null ? ", TLS" : "", epoll ? "epoll" : "NIO", options.host(), started.port(),
                options.externalLabels());
        return started;
    }

    /** The bound port (the chosen one when 0 was asked for). */
    public int port() {
        return server.getPort();
    }

    /** Stops accepting, gives running calls a moment, then cancels them and stops the threads. Idempotent. */
    @Override
    public void close() {
        health.enterTerminalState();
        server.shutdown();
        try {
            if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
                server.shutdownNow();
                server.awaitTermination(2, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) { // calls read the head: let them end before it closes
                LOG.warn("StoreAPI calls still running 5 s after shutdown");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        worker.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix.endsWith("accept") || prefix.endsWith("io") ? prefix : prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
