package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The composition with a real head, real WALs and real HTTP; ingestion is a test starter that
 * feeds the head as the consumers do (the Kafka consumers have their own tests with a broker).
 */
class SluiceServerTest {
    @TempDir
    Path dir;

    private SluiceConfig config(String... extra) throws ConfigException {
        List<String> flags = new ArrayList<>(List.of("--data.dir=" + dir.resolve("data"), "--http.host=127.0.0.1",
                "--http.port=0", "--head.shards=2", "--wal.segment-size=1MiB", "--kafka.bootstrap-servers=unused:9092",
                "--kafka.topics=m=sluice"));
        flags.addAll(List.of(extra));
        return ConfigLoader.load(null, Map.of(), flags);
    }

    /** Feeds records 0..records-1 of m/0 when started; assignment and close are observable. */
    private static final class FeedingIngest implements Ingest.Starter, Ingest {
        final AtomicBoolean assigned = new AtomicBoolean();
        final List<String> events = new ArrayList<>();
        private final int records;
        private Head head;

        FeedingIngest(int records) {
            this.records = records;
        }

        @Override
        public Ingest start(Head head, MeterRegistry registry) {
            this.head = head;
            events.add("started, head ready=" + head.isReady());
            for (long offset = 0; offset < records; offset++) {
                TestHeads.feed(head, "m", 0, offset, 30, 1_000 * (offset + 1));
            }
            return this;
        }

        @Override
        public boolean hasAssignment() {
            return assigned.get();
        }

        @Override
        public void close() {
            events.add("closed, head ready=" + head.isReady()); // the head must still run: it drains after us
        }
    }

    @Test
    void startsInOrderServesHealthAndMetricsAndStopsInOrder() throws Exception {
        FeedingIngest ingest = new FeedingIngest(5);
        SluiceServer server = SluiceServer.start(config(), ingest);
        try {
            assertThat(TestHttp.get(server.httpAddress(), "/-/healthy").statusCode()).isEqualTo(200);
            HttpResponse<String> notReady = TestHttp.get(server.httpAddress(), "/-/ready");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).contains("no Kafka partitions assigned yet");
            ingest.assigned.set(true);
            assertThat(TestHttp.get(server.httpAddress(), "/-/ready").statusCode()).isEqualTo(200);
            TestHeads.awaitDurable(server.head(), "m", 0, 4);
            String scrape = TestHttp.get(server.httpAddress(), "/metrics").body();
            assertThat(TestHttp.sample(scrape, "sluice_samples_appended_total")).isEqualTo(150.0);
            assertThat(TestHttp.sample(scrape, "sluice_series_active")).isEqualTo(30.0);
        } finally {
            server.close();
        }
        assertThat(ingest.events).containsExactly("started, head ready=true", "closed, head ready=true");
        assertThatThrownBy(() -> TestHttp.get(server.httpAddress(), "/-/healthy")).isInstanceOf(ConnectException.class);
        server.close(); // idempotent
    }

    @Test
    void aRestartRestoresTheShardsFromTheirCheckpoints() throws Exception {
        try (SluiceServer first = SluiceServer.start(config(), new FeedingIngest(3))) {
            TestHeads.awaitDurable(first.head(), "m", 0, 2);
        }
        FeedingIngest nothing = new FeedingIngest(0);
        try (SluiceServer second = SluiceServer.start(config(), nothing)) {
            nothing.assigned.set(true);
            assertThat(second.isReady()).isTrue();
            assertThat(second.head().seriesCount()).isEqualTo(30);
            assertThat(second.head().durableWatermark(second.head().streams().idOf("m", 0))).isEqualTo(2);
            String scrape = TestHttp.get(second.httpAddress(), "/metrics").body();
            // The graceful stop checkpointed every shard: the 90 samples are loaded, none replayed from the WAL.
            assertThat(TestHttp.sample(scrape, "sluice_replay_samples_total")).isEqualTo(0.0);
            assertThat(TestHttp.sample(scrape, "sluice_chunks_damaged_total")).isEqualTo(0.0);
            assertThat(second.head().query(0, Long.MAX_VALUE, io.sluice.core.index.Matcher.re("__name__", ".+")).size()).isEqualTo(30);
        }
    }

    @Test
    void aTakenPortFailsTheStartAndLeavesNothingRunning() throws Exception {
        try (SluiceServer first = SluiceServer.start(config("--data.dir=" + dir.resolve("a")), new FeedingIngest(0))) {
            int port = first.httpAddress().getPort();
            assertThatThrownBy(() -> SluiceServer.start(config("--http.port=" + port), new FeedingIngest(0)))
                    .isInstanceOf(IOException.class).hasMessageContaining("cannot listen on 127.0.0.1:" + port);
        }
        // The failed start released everything: the same data directory opens.
        try (SluiceServer again = SluiceServer.start(config(), new FeedingIngest(1))) {
            TestHeads.awaitDurable(again.head(), "m", 0, 0);
        }
    }

    @Test
    void aFailingIngestStartClosesTheHead() throws Exception {
        assertThatThrownBy(() -> SluiceServer.start(config(), (head, registry) -> {
            throw new IllegalStateException("no consumers today");
        })).hasMessage("no consumers today");
        try (SluiceServer again = SluiceServer.start(config(), new FeedingIngest(0))) { // WAL locks were released
            assertThat(again.head().isReady()).isTrue();
        }
    }
}
