package io.sluice.server.config;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;

/**
 * Limits of the HTTP server ({@code http.*} keys).
 *
 * @param threads          blocking routes (the query API) that run at once ({@code http.threads}); more wait
 * @param maxConnections   open connections; more are accepted and closed at once ({@code http.max-connections})
 * @param idleTimeoutMs    a connection with no request in progress, or whose client reads nothing of a
 *                         response for this long, is closed ({@code http.idle-timeout})
 * @param headerTimeoutMs  from a request's first byte to the end of its headers ({@code http.header-read-timeout})
 * @param requestTimeoutMs from a request's first byte to the end of its body ({@code http.request-timeout})
 * @param webConfigFile    TLS and basic auth ({@code http.web-config-file}, see {@code http.WebConfig}); null for none
 */
public record HttpOptions(int threads, int maxConnections, long idleTimeoutMs, long headerTimeoutMs, long requestTimeoutMs,
                          Path webConfigFile) {
    /** Default of {@code http.max-connections} at most: far more than dashboards and remote-read clients need. */
    static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** Descriptors kept for the shards (WAL segments, chunk files, checkpoints), Kafka and the JVM: at least this many. */
    public static final int MIN_DESCRIPTOR_RESERVE = 256;

    public HttpOptions {
        if (threads < 1 || maxConnections < 1 || idleTimeoutMs < 1 || headerTimeoutMs < 1 || requestTimeoutMs < 1) {
            throw new IllegalArgumentException("HTTP limits must be positive: threads " + threads + ", max connections "
                    + maxConnections + ", timeouts " + idleTimeoutMs + "/" + headerTimeoutMs + "/" + requestTimeoutMs + " ms");
        }
    }

    public static final long DEFAULT_IDLE_TIMEOUT_MS = 60_000;
    public static final long DEFAULT_HEADER_TIMEOUT_MS = 10_000;
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

    /** The defaults: {@link #defaultThreads()}, {@link #defaultMaxConnections()}, 1 min idle, 10 s headers, 1 min request. */
    public static HttpOptions defaults() {
        return new HttpOptions(defaultThreads(), defaultMaxConnections(), DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_HEADER_TIMEOUT_MS,
                DEFAULT_REQUEST_TIMEOUT_MS, null);
    }

    public HttpOptions withThreads(int n) {
        return new HttpOptions(n, maxConnections, idleTimeoutMs, headerTimeoutMs, requestTimeoutMs, webConfigFile);
    }

    public HttpOptions withMaxConnections(int n) {
        return new HttpOptions(threads, n, idleTimeoutMs, headerTimeoutMs, requestTimeoutMs, webConfigFile);
    }

    public HttpOptions withTimeouts(long idleMs, long headerMs, long requestMs) {
        return new HttpOptions(threads, maxConnections, idleMs, headerMs, requestMs, webConfigFile);
    }

    public HttpOptions withWebConfigFile(Path file) {
        return new HttpOptions(threads, maxConnections, idleTimeoutMs, headerTimeoutMs, requestTimeoutMs, file);
    }

    /** The default of {@code http.threads}: one per core, at least two (one long export must not block every query). */
    public static int defaultThreads() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /**
     * The default of {@code http.max-connections}: {@value #DEFAULT_MAX_CONNECTIONS}, or fewer when the
     * process' descriptor limit minus {@link #descriptorReserve} is lower.
     */
    public static int defaultMaxConnections() {
        return Math.min(DEFAULT_MAX_CONNECTIONS, connectionCeiling());
    }

    /**
     * The most connections the server allows whatever {@code http.max-connections} says: the process'
     * descriptor limit minus {@link #descriptorReserve}, so idle clients can never take the descriptors
     * the shards need to open WAL segments and chunk files. {@link Integer#MAX_VALUE} when the limit is unknown.
     */
    public static int connectionCeiling() {
        long limit = descriptorLimit();
        return limit <= 0 ? Integer.MAX_VALUE : (int) Math.max(1, Math.min(Integer.MAX_VALUE, limit - descriptorReserve(limit)));
    }

    /** Descriptors kept out of HTTP's reach: a quarter of the limit, at least {@value #MIN_DESCRIPTOR_RESERVE}. */
    public static long descriptorReserve(long limit) {
        return Math.max(MIN_DESCRIPTOR_RESERVE, limit / 4);
    }

    /** The process' open-file limit (the JVM raises the soft limit to the hard one at start), or -1 if unknown. */
    public static long descriptorLimit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.UnixOperatingSystemMXBean unix ? unix.getMaxFileDescriptorCount() : -1;
    }
}
