package io.sluice.server.http;

import io.sluice.server.config.HttpOptions;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
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
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
 * The HTTP server: Netty with one event loop thread (epoll on Linux, NIO elsewhere) for I/O, health
 * and metrics, and blocking routes (the query API) each on its own virtual thread, at most
 * {@code http.threads} of them working at once ({@link QueryPermits}; more wait in arrival order).
 * Nothing here touches ingestion.
 *
 * <p>Limits, so that no client can stall the query API or take the process' file descriptors:
 * <ul>
 * <li>{@code http.max-connections} open connections. One more closes the connection idle the longest
 * (no request in progress: {@code sluice_http_connections_closed_total{reason="evicted"}}), so a flood
 * of idle connections cannot lock out health checks; when none is idle, the new one is closed at once,
 * counted ({@code sluice_http_connections_refused_total}) and logged once per burst. The limit never exceeds
 * the process' descriptor limit minus a reserve ({@link HttpOptions#connectionCeiling()}), so the
 * shards can always open WAL segments and chunk files.</li>
 * <li>Timeouts per connection ({@link ConnectionGuard}): idle, header read, whole request read, and a
 * client that takes no bytes of its response; each closes the connection
 * ({@code sluice_http_connections_closed_total{reason}}).</li>
 * <li>A client that reads a response slowly or not at all holds its connection's buffer (at most
 * {@value #WRITE_BUFFER_HIGH_BYTES} bytes queued, {@value #STREAM_WRITE_BUFFER_HIGH_BYTES} while a streamed
 * answer is written, plus the chunk being written), never a query slot.</li>
 * <li>Request line up to {@value #MAX_LINE_BYTES} bytes, headers up to {@value #MAX_HEADER_BYTES},
 * body up to {@value #MAX_REQUEST_BYTES} (413 beyond, with Prometheus' error JSON under {@code /api/}).</li>
 * </ul>
 * Accept failures (e.g. the process is out of descriptors) are logged as one line per burst, without
 * a stack trace; Netty stops accepting for a second after each.
 *
 * <p>TLS and authentication come from {@code http.web-config-file} ({@link WebConfig}), checked each
 * second for changes and reloaded by {@link #reloadWebConfig} (SIGHUP) ({@link WebAccess}); a new
 * connection uses the TLS context current when it opens.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    /** Largest request body (remote-read requests are snappy-compressed protobuf, far smaller). */
    static final int MAX_REQUEST_BYTES = 16 << 20;
    /** Longest request line (method, URL, version): room for long GET queries. */
    static final int MAX_LINE_BYTES = 64 << 10;
    /** Most bytes of all header lines of a request. */
    static final int MAX_HEADER_BYTES = 64 << 10;
    /** A connection with this many response bytes queued stops its writer until half are sent. */
    static final int WRITE_BUFFER_HIGH_BYTES = 64 << 10;
    /**
     * The same mark while a streamed answer ({@link ChunkedBodyStream}) is written: several of its chunks
     * may be queued, so the writer goes on producing while the socket sends (at the 64 KiB mark it waited
     * for the client after every chunk).
     */
    static final int STREAM_WRITE_BUFFER_HIGH_BYTES = 512 << 10;
    static final WriteBufferWaterMark WRITE_BUFFER_MARK = new WriteBufferWaterMark(WRITE_BUFFER_HIGH_BYTES / 2, WRITE_BUFFER_HIGH_BYTES);
    static final WriteBufferWaterMark STREAM_WRITE_BUFFER_MARK =
            new WriteBufferWaterMark(STREAM_WRITE_BUFFER_HIGH_BYTES / 2, STREAM_WRITE_BUFFER_HIGH_BYTES);
    /** Each connection's {@link ConnectionGuard}. */
    static final AttributeKey<ConnectionGuard> GUARD = AttributeKey.valueOf(ConnectionGuard.class, "guard");
    /** At most one warning line per this many ms for refused connections and accept failures. */
    private static final long LOG_EVERY_MS = 10_000;

    private final EventLoopGroup group;
    private final ExecutorService blockingExecutor;
    private final Channel channel;
    /** Open connections, closed on {@link #close()} so a kept-alive client sees the stop at once. */
    private final ChannelGroup connections;
    private final ScheduledFuture<?> sweep;
    private final List<Meter> meters;
    private final MeterRegistry registry;
    private final WebAccess web;

    private HttpServer(EventLoopGroup group, ExecutorService blockingExecutor, Channel channel, ChannelGroup connections,
                       ScheduledFuture<?> sweep, MeterRegistry registry, List<Meter> meters, WebAccess web) {
        this.group = group;
        this.blockingExecutor = blockingExecutor;
        this.channel = channel;
        this.connections = connections;
        this.sweep = sweep;
        this.registry = registry;
        this.meters = meters;
        this.web = web;
    }

    /**
     * Reads {@code http.web-config-file} again now, changed or not (what SIGHUP does); a file that does
     * not load keeps the current configuration and logs one line. On the caller's thread.
     */
    public void reloadWebConfig(String why) {
        web.reloadNow(why);
    }

    /**
     * Listens on {@code host:port} (port 0: any free port, see {@link #address()}) with the default limits.
     *
     * @throws IOException if it cannot listen there (port in use, unknown host); the message says where
     */
    public static HttpServer start(String host, int port, Router router) throws IOException {
        return start(host, port, HttpOptions.defaults(), router, null);
    }

    /** The default of {@code http.threads}: see {@link HttpOptions#defaultThreads()}. */
    public static int defaultThreads() {
        return HttpOptions.defaultThreads();
    }

    /**
     * Listens on {@code host:port} with {@code workerThreads} query slots and the default limits otherwise.
     *
     * @throws IOException if it cannot listen there (port in use, unknown host); the message says where
     */
    public static HttpServer start(String host, int port, int workerThreads, Router router) throws IOException {
        if (workerThreads < 1) {
            throw new IllegalArgumentException("workerThreads must be at least 1, was " + workerThreads);
        }
        return start(host, port, HttpOptions.defaults().withThreads(workerThreads), router, null);
    }

    /**
     * Listens on {@code host:port} with {@code options}; registers its meters
     * ({@code sluice_http_*}) in {@code registry} unless null.
     *
     * @throws IOException if it cannot listen there (port in use, unknown host); the message says where
     */
    public static HttpServer start(String host, int port, HttpOptions options, Router router, MeterRegistry registry)
            throws IOException {
        int maxConnections = options.maxConnections();
        int ceiling = HttpOptions.connectionCeiling();
        if (maxConnections > ceiling) {
            LOG.warn("http.max-connections={} is more than the descriptor limit {} minus the reserve {} for the shards: "
                    + "allowing {} connections", maxConnections, HttpOptions.descriptorLimit(),
                    HttpOptions.descriptorReserve(HttpOptions.descriptorLimit()), ceiling);
            maxConnections = ceiling;
        }
        WebAccess web = WebAccess.open(options.webConfigFile());
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, daemonThreads("sluice-http"), io);
        ExecutorService blocking = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-http-worker-", 0).factory());
        QueryPermits permits = new QueryPermits(options.threads(), options.idleTimeoutMs() + 10_000);
        RouterHandler handler = new RouterHandler(router, blocking, permits, web);
        ChannelGroup connections = new DefaultChannelGroup("sluice-http", GlobalEventExecutor.INSTANCE);
        AtomicInteger open = new AtomicInteger();
        Counter refused = new Counter();
        Map<ConnectionGuard.Expiry, Counter> expired = new EnumMap<>(ConnectionGuard.Expiry.class);
        for (ConnectionGuard.Expiry e : ConnectionGuard.Expiry.values()) {
            expired.put(e, new Counter());
        }
        RateLimitedLog refusals = new RateLimitedLog();
        RateLimitedLog acceptFailures = new RateLimitedLog();
        int limit = maxConnections;
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(channelType)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER_MARK)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (open.incrementAndGet() > limit) {
                                Channel idlest = idlest(connections);
                                if (idlest != null) { // as nginx does: the new connection may carry a request
                                    expired.get(ConnectionGuard.Expiry.EVICTED).n.increment();
                                    idlest.close(); // its close listener counts it out of `open`
                                } else {
                                    open.decrementAndGet();
                                    refused.n.increment();
                                    refusals.log("refusing HTTP connections: " + limit + " open, the limit "
                                            + "(http.max-connections), none of them idle");
                                    ch.close();
                                    return;
                                }
                            }
                            ch.closeFuture().addListener(f -> open.decrementAndGet());
                            connections.add(ch);
                            ConnectionGuard guard = new ConnectionGuard(options, System.nanoTime());
                            ch.attr(GUARD).set(guard);
                            SslContext ssl = web.current().ssl();
                            if (ssl != null) {
                                ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                            }
                            ch.pipeline().addLast(guard.bytes(),
                                    new HttpServerCodec(MAX_LINE_BYTES, MAX_HEADER_BYTES, 8192),
                                    guard.messages(),
                                    new Aggregator(MAX_REQUEST_BYTES), handler);
                        }
                    })
                    .bind(host, port).sync().channel();
            // After the acceptor (added once registered): accept failures end here instead of Netty's tail,
            // which would log a stack trace per failed accept.
            channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    acceptFailures.log("cannot accept HTTP connections: " + cause.getMessage() + " (" + open.get() + " open)");
                }
            });
            ScheduledFuture<?> sweep = channel.eventLoop().scheduleWithFixedDelay(
                    () -> {
                        sweep(connections, expired);
                        if (options.webConfigFile() != null && !blocking.isShutdown()) {
                            try {
                                blocking.execute(web::reloadIfChanged); // file reads and TLS set-up: off the event loop
                            } catch (java.util.concurrent.RejectedExecutionException e) {
                                // stopping
                            }
                        }
                    }, 1, 1, TimeUnit.SECONDS);
            List<Meter> meters = registry == null ? List.of() : meters(registry, open, refused, expired, permits);
            HttpServer server = new HttpServer(group, blocking, channel, connections, sweep, registry, meters, web);
            LOG.info("HTTP listening on {}:{} ({}, {} query threads, at most {} connections, idle timeout {} ms{})",
                    server.address().getHostString(), server.address().getPort(), epoll ? "epoll" : "nio",
                    options.threads(), limit, options.idleTimeoutMs(), options.webConfigFile() == null ? ""
                            : ", web configuration " + options.webConfigFile() + ": TLS " + (web.current().ssl() != null ? "on" : "off")
                            + ", " + web.current().users().size() + " basic-auth user(s)");
            return server;
        } catch (Exception e) { // bind() rethrows checked socket exceptions undeclared
            shutdown(group, blocking);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /** Closes the connections over a timeout; on the event loop (the only one, so every guard's). */
    private static void sweep(ChannelGroup connections, Map<ConnectionGuard.Expiry, Counter> expired) {
        long now = System.nanoTime();
        for (Channel ch : connections) {
            ConnectionGuard guard = ch.attr(GUARD).get();
            ConnectionGuard.Expiry why = guard == null ? null : guard.expired(ch, now);
            if (why != null) {
                LOG.debug("closing HTTP connection from {}: {}", ch.remoteAddress(), why);
                expired.get(why).n.increment();
                ch.close();
            }
        }
    }

    /** The connection idle the longest (no request in progress, nothing to send), or null; on the event loop. */
    private static Channel idlest(ChannelGroup connections) {
        Channel idlest = null;
        long since = Long.MAX_VALUE;
        for (Channel ch : connections) {
            ConnectionGuard guard = ch.attr(GUARD).get();
            long idle = guard == null || !ch.isActive() ? -1 : guard.idleSinceNs(ch);
            if (idle >= 0 && (idlest == null || idle - since < 0)) {
                idlest = ch;
                since = idle;
            }
        }
        return idlest;
    }

    private static List<Meter> meters(MeterRegistry registry, AtomicInteger open, Counter refused,
                                      Map<ConnectionGuard.Expiry, Counter> expired, QueryPermits permits) {
        List<Meter> meters = new ArrayList<>();
        meters.add(Gauge.builder("sluice.http.connections", open, AtomicInteger::get)
                .description("Open HTTP connections").register(registry));
        meters.add(FunctionCounter.builder("sluice.http.connections.refused", refused, c -> c.n.sum())
                .description("HTTP connections closed at once because http.max-connections were open").register(registry));
        expired.forEach((why, c) -> meters.add(FunctionCounter.builder("sluice.http.connections.closed", c, x -> x.n.sum())
                .tag("reason", why.name().toLowerCase(Locale.ROOT))
                .description("HTTP connections closed by the server: idle, header_timeout, request_timeout, "
                        + "stalled_client (took no response bytes for http.idle-timeout), evicted (the idlest one, for a "
                        + "new connection over http.max-connections)").register(registry)));
        meters.add(Gauge.builder("sluice.http.queries.running", permits, QueryPermits::inUse)
                .description("Query API requests working now (at most http.threads)").register(registry));
        meters.add(Gauge.builder("sluice.http.responses.waiting", permits, QueryPermits::waitingForClients)
                .description("Streamed responses waiting for their client to read (each holds a buffer, no query slot)")
                .register(registry));
        return meters;
    }

    /** A counter cell for a meter. */
    private static final class Counter {
        final LongAdder n = new LongAdder();
    }

    /**
     * A warning that may repeat in bursts: the first occurrence after a quiet {@link #LOG_EVERY_MS} is
     * logged at once, later ones at most once per {@link #LOG_EVERY_MS} with how many there were.
     */
    private static final class RateLimitedLog {
        private final AtomicLong lastNs = new AtomicLong(System.nanoTime() - LOG_EVERY_MS * 2_000_000);
        private final LongAdder since = new LongAdder();

        void log(String message) {
            since.increment();
            long now = System.nanoTime();
            long last = lastNs.get();
            if (now - last >= LOG_EVERY_MS * 1_000_000 && lastNs.compareAndSet(last, now)) {
                LOG.warn("{}; {} time(s) since the last such message", message, since.sumThenReset());
            }
        }
    }

    /** Answers a body over the limit with 413 (Prometheus' error JSON under {@code /api/}) and closes. */
    private static final class Aggregator extends HttpObjectAggregator {
        Aggregator(int maxContentLength) {
            super(maxContentLength);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            String path = oversized instanceof HttpRequest request ? RouterHandler.rawPath(request.uri()) : "";
            RouterHandler.sendAndClose(ctx, Reply.error(path, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "bad_data",
                    "request body larger than " + MAX_REQUEST_BYTES + " bytes"));
        }
    }

    /** Where the server listens (the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops listening, closes connections and the event loop; waits up to a few seconds. Idempotent. */
    @Override
    public void close() {
        sweep.cancel(false);
        if (registry != null) {
            meters.forEach(registry::remove);
        }
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
