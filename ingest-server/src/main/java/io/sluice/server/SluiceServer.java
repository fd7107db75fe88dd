package io.sluice.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.replay.ReplayListener;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.config.SluiceConfig;
import io.sluice.server.http.HealthRoutes;
import io.sluice.server.http.HttpServer;
import io.sluice.server.http.MetricsRoute;
import io.sluice.server.http.Router;
import io.sluice.server.metrics.AotCacheStatus;
import io.sluice.server.metrics.HeadMetrics;
import io.sluice.server.metrics.ProcessMetrics;
import io.sluice.server.metrics.ReplayMetrics;
import io.sluice.server.metrics.ReplayProgressLog;
import io.sluice.server.query.QueryApi;
import io.sluice.server.store.StoreApiServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service: the head (shards and WALs), the HTTP server, the Thanos StoreAPI gRPC server (when
 * {@code store.grpc.port} is set) and ingestion, started and stopped in order.
 *
 * <p>Start: metrics and HTTP first, so a scrape can watch the WAL replay and {@code /-/ready} says
 * "replaying"; then the head (returns once every shard has replayed its WAL); then ingestion,
 * which seeks partitions from the replayed watermarks. Stop ({@link #close()}, from the thread that
 * got SIGTERM/SIGINT or a shutdown hook): ingestion first (stop polling, hand over what was polled,
 * commit), then the head (drain the queues, sync the WALs), then HTTP and the registry.
 *
 * <p>Thread-safety: {@code start} on one thread; {@link #close()} is idempotent and may come from
 * any thread; the readiness and address accessors are for any thread.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceServer.class);

    private final SluiceConfig config;
    private final ProcessMetrics metrics;
    private final Head head;
    private final HttpServer http;
    private final StoreApiServer storeApi; // null when store.grpc.port is off
    private volatile Ingest ingest;      // set once by start, read by readiness checks (HTTP thread)
    private volatile boolean stopping;
    private boolean closed;              // guarded by this

    private SluiceServer(SluiceConfig config, ProcessMetrics metrics, Head head, HttpServer http, StoreApiServer storeApi) {
        this.config = config;
        this.metrics = metrics;
        this.head = head;
        this.http = http;
        this.storeApi = storeApi;
    }

    /**
     * Starts everything and returns once ingestion runs.
     *
     * @throws IOException if the HTTP port cannot be bound or a WAL cannot be opened (another process
     *                     holds the data directory); nothing is left running
     */
    public static SluiceServer start(SluiceConfig config, Ingest.Starter ingestStarter) throws IOException {
        return start(config, ingestStarter, ReplayListener.NONE);
    }

    /**
     * {@link #start(SluiceConfig, Ingest.Starter)} telling {@code replayListener} of every WAL record
     * the shards replay, on their threads (tests hold the replay there to watch the service meanwhile).
     */
    public static SluiceServer start(SluiceConfig config, Ingest.Starter ingestStarter, ReplayListener replayListener)
            throws IOException {
        ProcessMetrics metrics = new ProcessMetrics();
        AotCacheStatus aotCache = AotCacheStatus.current();
        aotCache.log(LOG);
        aotCache.bindTo(metrics.registry());
        Head head = new Head(config.head(), new StreamRegistry(), new MemoryAccounting());
        head.replayListener(replayListener);
        new HeadMetrics(head).bindTo(metrics.registry());
        new ReplayMetrics(head).bindTo(metrics.registry());
        SluiceServer[] self = new SluiceServer[1];
        Router router = new Router();
        MetricsRoute.addTo(router, metrics.registry());
        HealthRoutes.addTo(router, () -> self[0] == null ? "starting" : self[0].notReadyReason());
        QueryApi.addTo(router, head, config.query(), metrics.registry(), System::currentTimeMillis);
        HttpServer http;
        try {
            http = HttpServer.start(config.httpHost(), config.httpPort(), config.http(), router, metrics.registry());
        } catch (IOException e) {
            metrics.close();
            throw e;
        }
        StoreApiServer storeApi = null;
        if (config.storeApi().enabled()) {
            try {
                storeApi = StoreApiServer.start(config.storeApi(), head, config.query(), config.httpThreads(),
                        metrics.registry(), () -> head.isReady() ? null : "replaying the write-ahead logs");
            } catch (IOException e) {
                closeQuietly("HTTP server", http);
                metrics.close();
                throw e;
            }
        }
        SluiceServer server = new SluiceServer(config, metrics, head, http, storeApi);
        self[0] = server;
        try {
            server.startHead();
            server.startIngest(ingestStarter);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void startHead() throws IOException {
        long t0 = System.nanoTime();
        LOG.info("replaying the WALs of {} shard(s) in {}", config.head().shards(), config.dataDir().toAbsolutePath());
        try (ReplayProgressLog progress = new ReplayProgressLog(head).start()) {
            head.start();
        }
        LOG.info("replayed in {} ms: {} series", (System.nanoTime() - t0) / 1_000_000, head.seriesCount());
    }

    private void startIngest(Ingest.Starter starter) throws IOException {
        try {
            ingest = starter.start(head, metrics.registry());
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("ingestion failed to start: " + e.getMessage(), e);
        }
    }

    /** Null when ready (WALs replayed, shards writing, partitions assigned), else why not. Any thread. */
    public String notReadyReason() {
        if (stopping) {
            return "stopping";
        }
        for (int i = 0; i < head.shardCount(); i++) {
            String walError = head.shard(i).walError();
            if (walError != null) {
                return walError;
            }
        }
        if (!head.isReady()) {
            return "replaying the write-ahead logs";
        }
        Ingest current = ingest;
        if (current == null) {
            return "starting the Kafka consumers";
        }
        return current.hasAssignment() ? null : "no Kafka partitions assigned yet";
    }

    public boolean isReady() {
        return notReadyReason() == null;
    }

    /** Reloads the HTTP web configuration now ({@link HttpServer#reloadWebConfig}); SIGHUP calls it. Any thread. */
    public void reloadWebConfig(String why) {
        http.reloadWebConfig(why);
    }

    /** The StoreAPI gRPC server's port, or -1 when it is off. */
    public int storeApiPort() {
        return storeApi == null ? -1 : storeApi.port();
    }

    /** Where HTTP listens. */
    public InetSocketAddress httpAddress() {
        return http.address();
    }

    public Head head() {
        return head;
    }

    public PrometheusMeterRegistry registry() {
        return metrics.registry();
    }

    public SluiceConfig config() {
        return config;
    }

    /** Stops ingestion (commit), then the head (drain, sync), then HTTP. Idempotent; any thread. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        long t0 = System.nanoTime();
        Ingest current = ingest;
        if (current != null) {
            closeQuietly("ingestion", current);
        }
        if (storeApi != null) {
            closeQuietly("StoreAPI gRPC server", storeApi); // before the head: its calls read the head
        }
        closeQuietly("head", head);
        closeQuietly("HTTP server", http);
        closeQuietly("metrics", metrics);
        LOG.info("stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /** A failure to stop one part must not keep the others running; it is logged with its stack trace. */
    private static void closeQuietly(String what, AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.error("stopping the {} failed", what, e);
        }
    }
}
