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
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private final Server server;
    private final HealthStatusManager health;
    private final EventLoopGroup boss;
    private final EventLoopGroup worker;
    private final ExecutorService executor;
    /** Whether this server holds gRPC's Netty leak detection off (given back once, on close). */
    private final AtomicBoolean holdsLeakDetection;

    private StoreApiServer(Server server, HealthStatusManager health, EventLoopGroup boss, EventLoopGroup worker,
                           ExecutorService executor, boolean holdsLeakDetection) {
        this.server = server;
        this.health = health;
        this.boss = boss;
        this.worker = worker;
        this.executor = executor;
        this.holdsLeakDetection = new AtomicBoolean(holdsLeakDetection);
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
        boolean quiet = LeakDetection.quiet();
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
            if (quiet) {
                LeakDetection.restore();
            }
            throw new IOException("StoreAPI gRPC server cannot start on " + options.host() + ":" + options.port()
                    + ": " + e.getMessage(), e);
        }
        health.setStatus("", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
        StoreApiServer started = new StoreApiServer(server, health, boss, worker, executor, quiet);
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
        if (holdsLeakDetection.compareAndSet(true, false)) {
            LeakDetection.restore();
        }
    }

    /**
     * Leak detection in gRPC's relocated Netty, off while a StoreAPI server runs: that copy's buffers
     * never reach Sluice's code (messages are handed over as streams), and sampling them (a stack trace
     * per 128 buffers: one per DATA frame header) cost ~4 % of the event loop. Only the relocated copy's
     * level is touched (the HTTP API's Netty and any other in the process keep theirs; no system
     * property is set), only while it is Netty's default with none of the copy's properties given (a
     * user's {@code -Dio.grpc.netty.shaded.io.netty.leakDetection.level}, its legacy forms, or a
     * {@code setLevel} call win), and the default comes back when the last such server closes.
     */
    private static final class LeakDetection {
        /** The relocated copy's properties that choose a level (read once, when Netty loads). */
        private static final List<String> PROPERTIES = List.of("io.grpc.netty.shaded.io.netty.leakDetection.level",
                "io.grpc.netty.shaded.io.netty.leakDetectionLevel", "io.grpc.netty.shaded.io.netty.noResourceLeakDetection");
        private static int servers;

        private LeakDetection() {
        }

        /** Turns it off unless configured; true when the caller holds it off and must {@link #restore()}. */
        static synchronized boolean quiet() {
            if (servers == 0) {
                if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.SIMPLE // Netty's default
                        || PROPERTIES.stream().anyMatch(p -> System.getProperty(p) != null)) {
                    return false;
                }
                ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
            }
            servers++;
            return true;
        }

        /** Gives back one hold; the last one restores the default unless the level was set meanwhile. */
        static synchronized void restore() {
            if (--servers == 0 && ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.DISABLED) {
                ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
            }
        }
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
