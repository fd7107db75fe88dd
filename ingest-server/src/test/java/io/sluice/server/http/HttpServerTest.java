package io.sluice.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.server.TestHttp;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP server on a real port of 127.0.0.1: routing, errors, health and metrics. */
class HttpServerTest {
    private final AtomicReference<String> notReady = new AtomicReference<>("replaying the write-ahead logs");
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        Counter.builder("sluice.test.events").register(registry).increment(3);
        Router router = new Router()
                .get("/thread", request -> Reply.text(HttpResponseStatus.OK, Thread.currentThread().getName()))
                .blocking(HttpMethod.GET, "/slow", request -> Reply.text(HttpResponseStatus.OK,
                        Thread.currentThread().getName()))
                .get("/boom", request -> {
                    throw new IllegalStateException("route bug");
                });
        HealthRoutes.addTo(router, notReady::get);
        MetricsRoute.addTo(router, registry);
        server = HttpServer.start("127.0.0.1", 0, router);
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    @Test
    void quickRoutesRunOnTheEventLoopAndBlockingOnesOffIt() throws Exception {
        assertThat(TestHttp.get(server.address(), "/thread").body()).startsWith("sluice-http-");
        assertThat(TestHttp.get(server.address(), "/thread").body()).doesNotStartWith("sluice-http-worker");
        assertThat(TestHttp.get(server.address(), "/slow").body()).startsWith("sluice-http-worker-");
    }

    /**
     * {@code http.threads} sizes the pool of blocking routes: with 3 threads, three requests are inside
     * the route at once (each waits at a barrier for the other two); with fewer threads the barrier
     * would break after its deadline and the requests answer 500.
     */
    @Test
    void theWorkerThreadsSettingIsHowManyBlockingRequestsRunAtOnce() throws Exception {
        int threads = 3;
        CyclicBarrier allInside = new CyclicBarrier(threads);
        Router router = new Router().blocking(HttpMethod.GET, "/together", request -> {
            try {
                allInside.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                return Reply.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "not all inside: " + e);
            }
            return Reply.text(HttpResponseStatus.OK, Thread.currentThread().getName());
        });
        try (HttpServer three = HttpServer.start("127.0.0.1", 0, threads, router)) {
            HttpClient client = HttpClient.newHttpClient();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                answers.add(client.sendAsync(HttpRequest.newBuilder(TestHttp.uri(three.address(), "/together")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Set<String> names = new HashSet<>();
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> r = answer.get(120, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                names.add(r.body());
            }
            assertThat(names).hasSize(threads).allSatisfy(n -> assertThat(n).startsWith("sluice-http-worker-"));
        }
        assertThatThrownBy(() -> HttpServer.start("127.0.0.1", 0, 0, router)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unknownPathIs404AndWrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> missing = TestHttp.get(server.address(), "/api/v1/query");
        assertThat(missing.statusCode()).isEqualTo(404);
        HttpResponse<String> post = TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(server.address(), "/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("GET");
    }

    @Test
    void aRouteThatThrowsIs500AndTheServerGoesOn() throws Exception {
        HttpResponse<String> boom = TestHttp.get(server.address(), "/boom");
        assertThat(boom.statusCode()).isEqualTo(500);
        assertThat(boom.body()).contains("route bug");
        assertThat(TestHttp.get(server.address(), "/-/healthy").statusCode()).isEqualTo(200);
    }

    @Test
    void healthyAlwaysReadyOnlyWhenReady() throws Exception {
        HttpResponse<String> healthy = TestHttp.get(server.address(), "/-/healthy");
        assertThat(healthy.statusCode()).isEqualTo(200);
        assertThat(healthy.body()).isEqualTo("Sluice is Healthy.\n");
        HttpResponse<String> notYet = TestHttp.get(server.address(), "/-/ready");
        assertThat(notYet.statusCode()).isEqualTo(503);
        assertThat(notYet.body()).isEqualTo("Sluice is not ready: replaying the write-ahead logs\n");
        notReady.set(null);
        HttpResponse<String> ready = TestHttp.get(server.address(), "/-/ready?verbose=1");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("Sluice is Ready.\n");
    }

    @Test
    void metricsInPrometheusTextOrOpenMetricsOnRequest() throws Exception {
        HttpResponse<String> text = TestHttp.get(server.address(), "/metrics");
        assertThat(text.statusCode()).isEqualTo(200);
        assertThat(text.headers().firstValue("Content-Type")).contains("text/plain; version=0.0.4; charset=utf-8");
        assertThat(TestHttp.sample(text.body(), "sluice_test_events_total")).isEqualTo(3.0);

        HttpResponse<String> open = TestHttp.get(server.address(), "/metrics",
                "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
        assertThat(open.headers().firstValue("Content-Type")).contains("application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertThat(open.body()).contains("sluice_test_events_total 3.0").endsWith("# EOF\n");
    }

    @Test
    void aTakenPortIsAnIOExceptionSayingWhere() {
        int port = server.address().getPort();
        assertThatThrownBy(() -> HttpServer.start("127.0.0.1", port, new Router()))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": ");
    }

    @Test
    void routesCannotBeRegisteredTwice() {
        Router router = new Router().get("/a", request -> null);
        assertThatThrownBy(() -> router.get("/a", request -> null)).hasMessage("GET /a is routed twice");
        assertThatThrownBy(() -> router.get("b", request -> null)).hasMessage("paths start with '/': b");
    }
}
