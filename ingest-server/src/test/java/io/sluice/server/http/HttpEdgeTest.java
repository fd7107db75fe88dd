package io.sluice.server.http;

import io.sluice.server.config.HttpOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.server.RawHttp;
import io.sluice.server.StderrCapture;
import io.sluice.server.TestHttp;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP edge against clients that misbehave, on real sockets of 127.0.0.1: clients that never
 * read, never finish a request or never leave; connection floods; requests no HTTP client would send.
 */
class HttpEdgeTest {
    private static final String STREAM_REQUEST = "GET /api/v1/export HTTP/1.1\r\nHost: sluice\r\n\r\n";
    private static final long STREAM_LIMIT_BYTES = 1L << 30;

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Bytes each streamed reply handed to the server so far. */
    private final ConcurrentLinkedQueue<AtomicLong> streamed = new ConcurrentLinkedQueue<>();
    private final List<Socket> sockets = new ArrayList<>();
    private HttpServer server;

    private void start(HttpOptions options) throws IOException {
        Router router = new Router()
                .blocking(HttpMethod.GET, "/api/v1/export", request -> Reply.streamed("application/stream+json", Map.of(),
                        out -> endless(out)))
                .blocking(HttpMethod.GET, "/api/v1/labels", request -> new Reply(HttpResponseStatus.OK, Reply.JSON,
                        "{\"status\":\"success\",\"data\":[]}".getBytes(StandardCharsets.UTF_8)))
                .blocking(HttpMethod.POST, "/api/v1/read", request -> Reply.text(HttpResponseStatus.OK, "read"))
                .blocking(HttpMethod.POST, "/upload", request -> Reply.text(HttpResponseStatus.OK, "upload"))
                .blocking(HttpMethod.GET, "/api/v1/boom", request -> {
                    throw new IllegalStateException("route bug");
                })
                .get("/x", request -> Reply.text(HttpResponseStatus.OK, "x"));
        server = HttpServer.start("127.0.0.1", 0, options, router, registry);
    }

    /** An export that never ends by itself (a GiB of JSON lines): only a client that reads gets it all. */
    private void endless(OutputStream out) throws IOException {
        AtomicLong written = new AtomicLong();
        streamed.add(written);
        byte[] line = ("{\"metric\":{\"__name__\":\"m\"},\"values\":[" + "1,".repeat(4000) + "1]}\n").getBytes(StandardCharsets.US_ASCII);
        while (written.get() < STREAM_LIMIT_BYTES) {
            out.write(line);
            written.addAndGet(line.length);
        }
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
        registry.close();
    }

    /**
     * The reproduction of two clients that send an export and never read: with as many stalled exports
     * as query threads, another query still answers (before, it waited for the stalled-client wait of
     * 60 s, past the client's 30 s timeout here), and each stalled export stopped after a bounded number
     * of bytes (those in the socket buffers plus the connection's 64 KiB).
     */
    @Test
    void clientsThatNeverReadHoldABufferNotAQueryThread() throws Exception {
        int threads = 2;
        start(HttpOptions.defaults().withThreads(threads).withTimeouts(600_000, 10_000, 60_000));
        for (int i = 0; i < threads; i++) {
            Socket s = stalledClient();
            s.getOutputStream().write(STREAM_REQUEST.getBytes(StandardCharsets.US_ASCII));
        }
        await(() -> gauge("sluice.http.responses.waiting") == threads, "both exports wait for their clients");
        assertThat(gauge("sluice.http.queries.running")).isZero();

        HttpResponse<String> other = TestHttp.get(server.address(), "/api/v1/labels");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.body()).isEqualTo("{\"status\":\"success\",\"data\":[]}");
        for (AtomicLong written : streamed) {
            assertThat(written.get()).as("bytes an export wrote for a client that reads nothing").isLessThan(64L << 20);
        }

        for (Socket s : sockets) {
            s.close(); // the writers see the closed connection and end
        }
        await(() -> gauge("sluice.http.responses.waiting") == 0, "the writers end once their clients are gone");
    }

    @Test
    void aClientThatStopsReadingIsDisconnectedAfterTheIdleTimeout() throws Exception {
        start(HttpOptions.defaults().withTimeouts(1_000, 10_000, 60_000));
        Socket s = stalledClient();
        s.getOutputStream().write(STREAM_REQUEST.getBytes(StandardCharsets.US_ASCII));
        await(() -> gauge("sluice.http.responses.waiting") == 1, "the export waits for its client");
        await(() -> closed("stalled_client") == 1, "the stalled client is disconnected");
        assertThat(RawHttp.closedByServer(s)).isTrue();
        await(() -> gauge("sluice.http.responses.waiting") == 0, "the writer ends");
    }

    @Test
    void idleConnectionsAndUnfinishedRequestsAreClosed() throws Exception {
        start(HttpOptions.defaults().withTimeouts(1_000, 1_000, 2_000));
        Socket idle = client();
        Socket noHeaderEnd = client();
        noHeaderEnd.getOutputStream().write("GET /x HTTP/1.1\r\nHost: sluice\r\n".getBytes(StandardCharsets.US_ASCII));
        Socket shortBody = client();
        shortBody.getOutputStream().write("POST /upload HTTP/1.1\r\nHost: sluice\r\nContent-Length: 100\r\n\r\nabc"
                .getBytes(StandardCharsets.US_ASCII));
        Socket keptAlive = client();
        keptAlive.getOutputStream().write("GET /x HTTP/1.1\r\nHost: sluice\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

        for (Socket s : List.of(idle, noHeaderEnd, shortBody)) {
            assertThat(RawHttp.closedByServer(s)).isTrue();
        }
        assertThat(RawHttp.readUntilClosed(keptAlive.getInputStream())).startsWith("HTTP/1.1 200 OK").endsWith("x\n");
        await(() -> closed("idle") == 2 && closed("header_timeout") == 1 && closed("request_timeout") == 1,
                "two idle connections, one header and one request timeout: " + registry.scrape());
        assertThat(TestHttp.get(server.address(), "/x").statusCode()).isEqualTo(200);
    }

    /**
     * A flood of connections over {@code http.max-connections} while every open one is busy (here:
     * sending its headers slowly): the extra ones are closed at once, the log has one line for the
     * burst (no stack trace), and once the flood leaves the server answers.
     */
    @Test
    void connectionsOverTheLimitAreClosedAtOnceAndLoggedOncePerBurst() throws Exception {
        int limit = 10;
        int flood = 40;
        try (StderrCapture log = new StderrCapture()) {
            start(HttpOptions.defaults().withMaxConnections(limit));
            for (int i = 0; i < limit; i++) {
                client().getOutputStream().write("GET /x HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            await(() -> gauge("sluice.http.connections") == limit, "the busy connections are open");
            Thread.sleep(1_000); // the server has read their first bytes: none is idle
            for (int i = limit; i < flood; i++) {
                client();
            }
            await(() -> counter("sluice_http_connections_refused_total") == flood - limit, "refusals counted");
            assertThat(gauge("sluice.http.connections")).isEqualTo(limit);
            int closed = 0;
            for (Socket s : sockets.subList(limit, flood)) {
                closed += RawHttp.closedByServer(s) ? 1 : 0;
            }
            assertThat(closed).isEqualTo(flood - limit);
            assertThat(log.lines("refusing HTTP connections: " + limit + " open")).isEqualTo(1);
            assertThat(log.text()).doesNotContain("Exception").doesNotContain("\tat ");

            for (Socket s : sockets) {
                s.close();
            }
            await(() -> gauge("sluice.http.connections") == 0, "the flood's connections are gone");
            assertThat(TestHttp.get(server.address(), "/x").statusCode()).isEqualTo(200);
        }
    }

    /**
     * Idle connections filling {@code http.max-connections} (the reproduction: they took every
     * descriptor, and health checks went unanswered): a new connection closes the one idle the
     * longest and is answered.
     */
    @Test
    void aNewConnectionEvictsTheIdlestWhenAllSlotsAreTaken() throws Exception {
        int limit = 10;
        start(HttpOptions.defaults().withMaxConnections(limit));
        for (int i = 0; i < limit; i++) {
            client();
            int opened = i + 1;
            await(() -> gauge("sluice.http.connections") == opened, "connection " + opened + " open");
        }
        RawHttp.Response health = RawHttp.exchange(server.address(), "GET /x HTTP/1.1\r\nHost: s\r\nConnection: close\r\n\r\n");
        assertThat(health.status()).isEqualTo(200);
        assertThat(closed("evicted")).isEqualTo(1);
        assertThat(counter("sluice_http_connections_refused_total")).isZero();
        sockets.getFirst().setSoTimeout(5_000);
        assertThat(RawHttp.closedByServer(sockets.getFirst())).as("the oldest idle connection was closed").isTrue();
        sockets.get(1).setSoTimeout(300);
        assertThat(RawHttp.closedByServer(sockets.get(1))).as("the others stay").isFalse();
    }

    /** The limit keeps a reserve of the process' descriptors for the shards, whatever is configured. */
    @Test
    void theConnectionLimitLeavesDescriptorsForTheShards() throws Exception {
        long descriptors = HttpOptions.descriptorLimit();
        assertThat(descriptors).as("the test JVM's descriptor limit").isPositive();
        long reserve = HttpOptions.descriptorReserve(descriptors);
        assertThat(reserve).isGreaterThanOrEqualTo(HttpOptions.MIN_DESCRIPTOR_RESERVE);
        assertThat(HttpOptions.connectionCeiling()).isEqualTo(descriptors - reserve);
        assertThat(HttpOptions.defaultMaxConnections()).isLessThanOrEqualTo((int) (descriptors - reserve));
        try (StderrCapture log = new StderrCapture()) {
            start(HttpOptions.defaults().withMaxConnections(Integer.MAX_VALUE));
            assertThat(log.lines("allowing " + (descriptors - reserve) + " connections")).isEqualTo(1);
        }
    }

    @Test
    void protocolErrorsAnswerWithAStatusAndNoJavaClassNames() throws Exception {
        start(HttpOptions.defaults());
        RawHttp.Response longLine = RawHttp.exchange(server.address(),
                "GET /api/v1/labels?match[]=" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: sluice\r\n\r\n");
        assertThat(longLine.status()).isEqualTo(414);
        assertThat(longLine.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\","
                + "\"error\":\"request line longer than 65536 bytes\"}");

        RawHttp.Response longHeaders = RawHttp.exchange(server.address(),
                "GET /x HTTP/1.1\r\nHost: sluice\r\nX-Big: " + "b".repeat(70_000) + "\r\n\r\n");
        assertThat(longHeaders.status()).isEqualTo(431);
        assertThat(longHeaders.body()).isEqualTo("request headers longer than 65536 bytes\n");

        RawHttp.Response version = RawHttp.exchange(server.address(), "GET /api/v1/labels HTTP/9.9\r\nHost: sluice\r\n\r\n");
        assertThat(version.head()).startsWith("HTTP/1.1 505 ");
        assertThat(version.body()).contains("\"errorType\":\"bad_data\"").contains("HTTP/9.9 not supported");

        RawHttp.Response garbage = RawHttp.exchange(server.address(), "HELLO\r\n\r\n");
        assertThat(garbage.status()).isEqualTo(400);
        assertThat(garbage.body()).isEqualTo("malformed HTTP request\n");

        RawHttp.Response tooLarge = RawHttp.exchange(server.address(),
                "POST /api/v1/read HTTP/1.1\r\nHost: sluice\r\nContent-Length: " + (17 << 20) + "\r\n\r\n");
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\","
                + "\"error\":\"request body larger than 16777216 bytes\"}");
        RawHttp.Response tooLargeText = RawHttp.exchange(server.address(),
                "POST /upload HTTP/1.1\r\nHost: sluice\r\nContent-Length: " + (17 << 20) + "\r\n\r\n");
        assertThat(tooLargeText.status()).isEqualTo(413);
        assertThat(tooLargeText.body()).isEqualTo("request body larger than 16777216 bytes\n");

        RawHttp.Response boom = RawHttp.exchange(server.address(),
                "GET /api/v1/boom HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n");
        assertThat(boom.status()).isEqualTo(500);
        assertThat(boom.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"internal\",\"error\":\"internal error: route bug\"}");

        RawHttp.Response badPath = RawHttp.exchange(server.address(), "GET /api/v1/label/%ZZ/values HTTP/1.1\r\nHost: s\r\nConnection: close\r\n\r\n");
        assertThat(badPath.status()).isEqualTo(400);
        assertThat(badPath.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\","
                + "\"error\":\"invalid URL escape \\\"%ZZ\\\" in the URL path\"}");

        for (RawHttp.Response r : List.of(longLine, longHeaders, version, garbage, tooLarge, boom, badPath)) {
            assertThat(r.head() + r.body()).doesNotContain("Exception").doesNotContain("java.");
        }
        assertThat(TestHttp.get(server.address(), "/x").statusCode()).isEqualTo(200);
    }

    // ---------------------------------------------------------------- helpers

    /** A client with a small receive buffer, so a response it never reads fills it soon. */
    private Socket stalledClient() throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(16 << 10);
        s.connect(new java.net.InetSocketAddress("127.0.0.1", server.address().getPort()), 10_000);
        s.setSoTimeout(30_000);
        sockets.add(s);
        return s;
    }

    private Socket client() throws IOException {
        Socket s = RawHttp.connect(server.address());
        sockets.add(s);
        return s;
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private double closed(String reason) {
        return registry.get("sluice.http.connections.closed").tag("reason", reason).functionCounter().count();
    }

    private double counter(String prometheusName) {
        return TestHttp.sample(registry.scrape(), prometheusName);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 60 s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
