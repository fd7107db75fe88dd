package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.Ingest;
import io.sluice.server.SluiceServer;
import io.sluice.server.TestHeads;
import io.sluice.server.TestHttp;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.config.SluiceConfig;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The query API inside the whole server: routes wired by SluiceServer, limits and lookback from configuration keys. */
class QueryWiringTest {
    @TempDir
    Path dir;

    @Test
    void theServerAnswersQueriesWithItsConfiguredLimits() throws Exception {
        SluiceConfig config = ConfigLoader.load(null, Map.of(), List.of("--data.dir=" + dir, "--http.host=127.0.0.1",
                "--http.port=0", "--head.shards=2", "--wal.segment-size=1MiB", "--kafka.bootstrap-servers=unused:9092",
                "--kafka.topics=m=sluice", "--query.max-series=5", "--query.lookback-delta=2s"));
        assertThat(config.query()).isEqualTo(new QueryOptions(5, 50_000_000, 2_000));
        Ingest.Starter feeding = (head, registry) -> {
            TestHeads.feed(head, "m", 0, 0, 10, 1_000);
            TestHeads.feed(head, "m", 0, 1, 10, 2_000);
            return new Ingest() {
                @Override
                public boolean hasAssignment() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
        };
        try (SluiceServer server = SluiceServer.start(config, feeding)) {
            TestHeads.awaitDurable(server.head(), "m", 0, 1);
            String cpu3 = "node_cpu_seconds_total{cpu=\"3\"}";
            assertThat(TestHttp.get(server.httpAddress(), "/api/v1/export?match[]=" + enc(cpu3)).body()).isEqualTo(
                    "{\"metric\":{\"__name__\":\"node_cpu_seconds_total\",\"cpu\":\"3\",\"instance\":\"host-3\",\"job\":\"node\"},"
                            + "\"values\":[4,5],\"timestamps\":[1000,2000]}\n");
            assertThat(TestHttp.get(server.httpAddress(), "/api/v1/query?time=3.999&query=" + enc(cpu3)).body())
                    .contains("\"value\":[3.999,\"5\"]");
            assertThat(TestHttp.get(server.httpAddress(), "/api/v1/query?time=4&query=" + enc(cpu3)).body())
                    .as("lookback-delta=2s").contains("\"result\":[]");
            HttpResponse<String> tooMany = TestHttp.get(server.httpAddress(), "/api/v1/series?match[]=node_cpu_seconds_total");
            assertThat(tooMany.statusCode()).isEqualTo(422);
            assertThat(TestHttp.get(server.httpAddress(), "/metrics").body())
                    .contains("sluice_query_rejected_total{reason=\"max_series\"} 1.0");
        }
    }
}
