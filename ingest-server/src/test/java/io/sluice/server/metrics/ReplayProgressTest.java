package io.sluice.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.replay.ReplayListener;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.Ingest;
import io.sluice.server.SluiceServer;
import io.sluice.server.TestHeads;
import io.sluice.server.TestHttp;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.SluiceConfig;
import io.sluice.tools.bench.GaugeWorkload;
import io.sluice.tools.bench.PersistedFilesAside;
import io.sluice.tools.bench.ReplayBenchWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay progress seen from outside while a real server replays real WALs: the replay is held at
 * its first record by a {@link ReplayListener} (a latch, not a sleep), and meanwhile {@code /-/ready}
 * says 503 "replaying", queries answer 503 {@code unavailable} (not a partial answer), the progress
 * gauge is below 1 and the progress line has a percent and an ETA.
 */
class ReplayProgressTest {
    private static final int SERIES = 500;
    private static final long SAMPLES = 50_000;
    private static final String SERIES_QUERY = "/api/v1/series?match[]=%7B__name__%3D~%22.%2B%22%7D";

    @TempDir
    Path dir;

    /** Writes SAMPLES samples into the WALs of the head {@code options} describe. */
    private static void writeWal(HeadOptions options) throws IOException {
        new ReplayBenchWriter(options.withPerShard(s -> s.withQueue(4, 4 << 20)), new GaugeWorkload(SERIES), new PrintWriter(new StringWriter()))
                .write(SAMPLES);
        PersistedFilesAside.drop(options.dataDirectory()); // the writer's close checkpointed: replay the WAL instead
    }

    /** Holds the first record replayed (of any shard) until released; the others pass. */
    private static final class Gate implements ReplayListener {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void onRecord(int shard, io.sluice.core.head.replay.ReplayProgress progress) {
            if (first.compareAndSet(true, false)) {
                reached.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void readyStaysFalseUntilEveryShardReplayedAndTheGaugesSaySo() throws Exception {
        int port = freePort();
        SluiceConfig config = ConfigLoader.load(null, Map.of(), List.of("--data.dir=" + dir.resolve("data"),
                "--http.host=127.0.0.1", "--http.port=" + port, "--head.shards=2", "--wal.segment-size=1MiB",
                "--kafka.bootstrap-servers=unused:9092", "--kafka.topics=m=sluice"));
        writeWal(config.head());
        Gate gate = new Gate();
        Ingest.Starter assigned = (head, registry) -> new Ingest() {
            @Override
            public boolean hasAssignment() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        CompletableFuture<SluiceServer> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return SluiceServer.start(config, assigned, gate);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        InetSocketAddress http = new InetSocketAddress("127.0.0.1", port);
        SluiceServer server = null;
        try {
            assertThat(gate.reached.await(60, TimeUnit.SECONDS)).as("replay reached its first record").isTrue();
            HttpResponse<String> ready = TestHttp.get(http, "/-/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("replaying the write-ahead logs");
            String scrape = TestHttp.get(http, "/metrics").body();
            assertThat(TestHttp.sample(scrape, "sluice_replay_progress_ratio")).isLessThan(1.0);
            assertThat(TestHttp.sample(scrape, "sluice_replay_wal_bytes")).isPositive();
            assertThat(starting).isNotDone();
            HttpResponse<String> query = TestHttp.get(http, SERIES_QUERY);
            assertThat(query.statusCode()).as(query.body()).isEqualTo(503);
            assertThat(query.body()).contains("\"errorType\":\"unavailable\"");

            gate.release.countDown();
            server = starting.get(60, TimeUnit.SECONDS);
            assertThat(TestHttp.get(http, "/-/ready").statusCode()).isEqualTo(200);
            query = TestHttp.get(http, SERIES_QUERY);
            assertThat(query.statusCode()).as(query.body()).isEqualTo(200);
            assertThat(query.body()).contains("\"status\":\"success\"");
            scrape = TestHttp.get(http, "/metrics").body();
            assertThat(TestHttp.sample(scrape, "sluice_replay_progress_ratio")).isEqualTo(1.0);
            assertThat(TestHttp.sample(scrape, "sluice_replay_samples_total")).isEqualTo((double) SAMPLES);
            assertThat(TestHttp.sample(scrape, "sluice_replay_replayed_bytes"))
                    .isEqualTo(TestHttp.sample(scrape, "sluice_replay_wal_bytes"));
        } finally {
            gate.release.countDown();
            if (server == null) {
                server = starting.get(60, TimeUnit.SECONDS);
            }
            server.close();
        }
    }

    @Test
    void theProgressLineHasPercentRateAndEta() throws Exception {
        HeadOptions options = TestHeads.options(dir, 2);
        writeWal(options);
        Head head = new Head(options, new StreamRegistry(), new MemoryAccounting());
        Gate gate = new Gate();
        head.replayListener(gate);
        long[] clockNs = {0};
        List<String> lines = new ArrayList<>();
        ReplayProgressLog log = new ReplayProgressLog(head, lines::add, () -> clockNs[0]);
        CompletableFuture<Void> starting = CompletableFuture.runAsync(() -> {
            try {
                head.start();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(gate.reached.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(head.isReplayDone()).isFalse();
            assertThat(ReplayMetrics.ratio(head)).isLessThan(1.0);
            clockNs[0] = 2_000_000_000L;
            String line = log.line(clockNs[0]);
            assertThat(line).matches("replay: \\d+\\.\\d% of 0\\.\\d\\d GB WAL, [\\d,]+ samples, [\\d.]+ M samples/s, ETA .+");
        } finally {
            gate.release.countDown();
            starting.get(60, TimeUnit.SECONDS);
            head.close();
        }
        assertThat(head.isReplayDone()).isTrue();
        assertThat(ReplayMetrics.ratio(head)).isEqualTo(1.0);
        assertThat(head.replayedBytes()).isEqualTo(head.replayTotalBytes()).isPositive();
    }
}
