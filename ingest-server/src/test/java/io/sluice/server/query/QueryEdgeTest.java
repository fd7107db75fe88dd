package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.RawHttp;
import io.sluice.server.StderrCapture;
import io.sluice.server.TestHttp;
import io.sluice.server.config.HttpOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The query API against clients that misbehave: requests with bad escapes, exports nobody reads. */
class QueryEdgeTest {
    @TempDir
    Path dir;
    private QueryFixture fixture;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        fixture = new QueryFixture(dir);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        fixture.close();
    }

    /**
     * The reproduction: as many clients as query threads send {@code /api/v1/export} of every series
     * and never read. Another query still answers (before, every query waited ~57 s for the stalled
     * writers, past the client's 30 s timeout here).
     */
    @Test
    void exportsNobodyReadsDoNotStallTheQueryApi() throws Exception {
        List<Map<String, String>> series = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            series.add(Map.of("__name__", "slow_reader_test", "instance", "host-" + i));
        }
        double[] values = new double[series.size()];
        for (int round = 0; round < 500; round++) {
            java.util.Arrays.fill(values, round * 1.25);
            fixture.submitRound(series, 1_700_000_000_000L + round * 15_000L, values);
        }
        fixture.awaitApplied(); // ~1 M samples: an export of ~20 MB, more than the socket buffers take

        int threads = HttpOptions.defaultThreads(); // the fixture's server runs with the default http.threads
        for (int i = 0; i < threads; i++) {
            Socket s = new Socket();
            s.setReceiveBufferSize(16 << 10);
            s.connect(new InetSocketAddress("127.0.0.1", fixture.http.address().getPort()), 10_000);
            sockets.add(s);
            s.getOutputStream().write(("GET /api/v1/export?match[]=" + QueryFixture.enc("{__name__=~\".+\"}")
                    + " HTTP/1.1\r\nHost: sluice\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (fixture.registry.get("sluice.http.responses.waiting").gauge().value() < threads) {
            assertThat(System.nanoTime()).as("the exports wait for their clients within 60 s").isLessThan(deadline);
            Thread.sleep(20);
        }

        HttpResponse<String> labels = fixture.get("/api/v1/labels");
        assertThat(labels.statusCode()).isEqualTo(200);
        assertThat(labels.body()).isEqualTo("{\"status\":\"success\",\"data\":[\"__name__\",\"instance\"]}");
        HttpResponse<String> query = fixture.get("/api/v1/query?query=slow_reader_test%7Binstance%3D%22host-7%22%7D&time=1700000105");
        assertThat(query.statusCode()).isEqualTo(200);
        assertThat(query.body()).contains("\"host-7\"").contains("\"8.75\"");
    }

    /** Bad percent-escapes in the URL, in {@code match[]}, in a form body and in the path: 400 bad_data, nothing logged. */
    @Test
    void malformedPercentEncodingIsBadDataNotAnInternalError() throws Exception {
        InetSocketAddress address = fixture.http.address();
        try (StderrCapture log = new StderrCapture()) {
            assertBadEscape(RawHttp.exchange(address, get("/api/v1/query?query=m%ZZ")), "URL");
            assertBadEscape(RawHttp.exchange(address, get("/api/v1/series?match[]=%ZZ")), "URL");
            assertBadEscape(RawHttp.exchange(address, get("/api/v1/export?match[]=up%7B%ZZ")), "URL");
            String form = "query=m%ZZ";
            assertBadEscape(RawHttp.exchange(address, "POST /api/v1/query HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length() + "\r\n\r\n" + form),
                    "form body");
            assertBadEscape(RawHttp.exchange(address, get("/api/v1/label/%ZZ/values")), "URL path");
            assertThat(log.text()).doesNotContain("Exception").doesNotContain("ERROR").doesNotContain("\tat ");
        }
        assertThat(TestHttp.sample(fixture.registry.scrape(), "sluice_query_rejected_total", "reason=\"bad_data\""))
                .isEqualTo(4.0);
        assertThat(fixture.get("/api/v1/labels").statusCode()).isEqualTo(200);
    }

    /** A regex over the length or repetition bound is 400 bad_data, before RE2J compiles it; one within answers. */
    @Test
    void regexesOverTheBoundsAreBadData() throws Exception {
        fixture.append(Map.of("__name__", "up", "job", "node"), new long[] {1_700_000_000_000L}, new double[] {1});
        HttpResponse<String> complex = fixture.get("/api/v1/query?time=1700000000&query="
                + QueryFixture.enc("up{job=~\"(.*){1000}\"}"));
        assertThat(complex.statusCode()).isEqualTo(400);
        assertThat(complex.body()).startsWith("{\"status\":\"error\",\"errorType\":\"bad_data\"").contains("too complex");
        HttpResponse<String> long_ = fixture.postForm("/api/v1/series", "match[]="
                + QueryFixture.enc("up{job=~\"" + "n".repeat(100_000) + "\"}"));
        assertThat(long_.statusCode()).isEqualTo(400);
        assertThat(long_.body()).contains("regex for label job too long: 100000 characters, at most 16384");
        HttpResponse<String> fine = fixture.get("/api/v1/query?time=1700000000&query="
                + QueryFixture.enc("up{job=~\"[a-z]{1,1000}\"}"));
        assertThat(fine.statusCode()).isEqualTo(200);
        assertThat(fine.body()).contains("\"job\":\"node\"");
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: sluice\r\nConnection: close\r\n\r\n";
    }

    private static void assertBadEscape(RawHttp.Response r, String where) {
        assertThat(r.status()).as(r.head()).isEqualTo(400);
        assertThat(r.head()).contains("content-type: application/json");
        assertThat(r.body()).isEqualTo("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid URL escape "
                + "\\\"%ZZ\\\" in the " + where + "\"}");
    }
}
