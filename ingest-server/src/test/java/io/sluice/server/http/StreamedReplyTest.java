package io.sluice.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.server.TestHttp;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Streamed replies (chunked transfer), errors before and after the first chunk, template routes and form parameters. */
class StreamedReplyTest {
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        Router router = new Router()
                .blocking(HttpMethod.GET, "/stream", request -> Reply.streamed("text/plain", Map.of("X-Test", "1"), out -> {
                    for (int i = 0; i < 100_000; i++) {
                        out.write(("line " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                    }
                }))
                .blocking(HttpMethod.GET, "/early-error", request -> Reply.streamed("text/plain", Map.of(), out -> {
                    out.write("not yet sent".getBytes(StandardCharsets.US_ASCII));
                    throw new ReplyException(Reply.text(HttpResponseStatus.UNPROCESSABLE_ENTITY, "too much"), "too much");
                }))
                .blocking(HttpMethod.GET, "/late-error", request -> Reply.streamed("text/plain", Map.of(), out -> {
                    out.write(new byte[ChunkedBodyStream.CHUNK_BYTES * 3]);
                    throw new ReplyException(Reply.text(HttpResponseStatus.UNPROCESSABLE_ENTITY, "too much"), "too much");
                }))
                .get("/streamed-on-event-loop", request -> Reply.streamed("text/plain", Map.of(), out -> out.write(1)))
                .blocking(HttpMethod.GET, "/refused", request -> {
                    throw new ReplyException(Reply.text(HttpResponseStatus.BAD_REQUEST, "bad"), "bad");
                })
                .get("/api/v1/label/{name}/values", request -> Reply.text(HttpResponseStatus.OK,
                        "template " + Router.pathSegment(RequestParams.of(request).path(), 4)))
                .get("/api/v1/label/exact/values", request -> Reply.text(HttpResponseStatus.OK, "exact"))
                .add(HttpMethod.POST, "/form", request -> {
                    RequestParams params = RequestParams.of(request);
                    return Reply.text(HttpResponseStatus.OK, params.all("match[]") + " " + params.first("q"));
                });
        server = HttpServer.start("127.0.0.1", 0, router);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aStreamedBodyArrivesWholeInChunks() throws Exception {
        HttpResponse<String> r = TestHttp.get(server.address(), "/stream");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("transfer-encoding")).contains("chunked");
        assertThat(r.headers().firstValue("x-test")).contains("1");
        String[] lines = r.body().split("\n");
        assertThat(lines).hasSize(100_000);
        assertThat(lines[99_999]).isEqualTo("line 99999");
        assertThat(TestHttp.get(server.address(), "/stream").body()).isEqualTo(r.body()); // the connection is reusable
    }

    @Test
    void anErrorBeforeTheFirstChunkIsAProperReply() throws Exception {
        HttpResponse<String> r = TestHttp.get(server.address(), "/early-error");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).isEqualTo("too much\n");
        assertThat(TestHttp.get(server.address(), "/refused").statusCode()).isEqualTo(400);
    }

    @Test
    void anErrorAfterTheFirstChunkBreaksTheTransfer() {
        assertThatThrownBy(() -> TestHttp.get(server.address(), "/late-error")).isInstanceOf(IOException.class);
    }

    @Test
    void aStreamedReplyOnTheEventLoopIsABug() throws Exception {
        assertThat(TestHttp.get(server.address(), "/streamed-on-event-loop").statusCode()).isEqualTo(500);
    }

    @Test
    void templateRoutesMatchOneSegmentAndExactPathsWin() throws Exception {
        assertThat(TestHttp.get(server.address(), "/api/v1/label/job/values").body()).isEqualTo("template job\n");
        assertThat(TestHttp.get(server.address(), "/api/v1/label/exact/values").body()).isEqualTo("exact\n");
        assertThat(TestHttp.get(server.address(), "/api/v1/label//values").statusCode()).isEqualTo(404);
        assertThat(TestHttp.get(server.address(), "/api/v1/label/a/b/values").statusCode()).isEqualTo(404);
        HttpResponse<String> post = TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(server.address(), "/api/v1/label/job/values"))
                .POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void formBodiesAndQueryStringsAreMergedAndSemicolonsAreCharacters() throws Exception {
        HttpResponse<String> r = TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(server.address(), "/form?match[]=c&q=x;y"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("match[]=a&match[]=b%7Bx%3D%22%3B%22%7D")).build());
        assertThat(r.body()).isEqualTo("[a, b{x=\";\"}, c] x;y\n");
    }
}
