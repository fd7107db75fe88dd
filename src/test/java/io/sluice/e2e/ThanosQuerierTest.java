package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One global PromQL view over a consumer group: three Sluice server processes in one group (own data
 * directories, each a StoreAPI endpoint with its own {@code sluice_instance} external label) consume
 * a 12-partition topic whose producer does not key by series ({@link SpreadSamples}: every series'
 * samples sit in two partitions, so most series are split across instances), and a real Thanos
 * Querier (built from the Go module proxy) fans out to them over TLS (a self-signed certificate made
 * by openssl; the Querier's {@code --grpc-client-tls-*} flags). Through the Querier's HTTP API,
 * {@code count}, {@code sum by (job) (rate(...[5m]))}, a {@code [1h]} range selector and
 * {@code /api/v1/series} agree with what was produced, sample for sample. Then one instance is
 * killed with SIGKILL mid-stream: while it is down answers carry Thanos' partial-response warning;
 * once it is restarted, the group has rebalanced and it has replayed, every sample is there once
 * (0 lost, 0 returned twice after the Querier's chain deduplication).
 */
class ThanosQuerierTest {
    private static final int PARTITIONS = 12;
    private static final int SERIES = 60;
    private static final int MOVE_ROUND = 120;
    private static final int ROUNDS = 240;      // 1 h of 15 s rounds
    private static final int MORE_ROUNDS = 360; // produced around the kill
    private static final Duration CATCH_UP = Duration.ofMinutes(4);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<ServerLauncher> launchers = new ArrayList<>();
    private final List<Integer> storePorts = new ArrayList<>();
    private ThanosQuerier querier;

    @AfterEach
    void stop() {
        if (querier != null) {
            querier.close();
        }
        launchers.forEach(ServerLauncher::close);
    }

    @Test
    void threeInstancesAnswerAsOneThroughTheQuerierAcrossAKillAndRestart() throws Exception {
        Path work = E2eEnvironment.newWorkDir("thanos");
        Path thanos = ThanosQuerier.binary(work.resolve("logs"));
        EmbeddedKafka kafka = E2eEnvironment.broker();
        String topic = E2eEnvironment.unique("thanos");
        String group = E2eEnvironment.unique("thanos-group");
        kafka.createTopic(topic, PARTITIONS);
        SpreadSamples samples = new SpreadSamples(SERIES, PARTITIONS, MOVE_ROUND);
        ConsumerProgress progress = new ConsumerProgress(kafka.admin(), topic, PARTITIONS, group);
        Path certificate = ThanosQuerier.selfSignedCertificate(work.resolve("tls"));

        for (String name : List.of("a", "b", "c")) {
            int storePort = E2eEnvironment.freePort();
            storePorts.add(storePort);
            launchers.add(new ServerLauncher(work.resolve("data-" + name), work.resolve("logs-" + name),
                    kafka.bootstrapServers(), topic, group, List.of(
                            "kafka.group-instance-id=" + group + "-" + name,
                            "head.shards=1",
                            "store.grpc.host=127.0.0.1",
                            "store.grpc.port=" + storePort,
                            "store.external-labels=" + ThanosQuerier.REPLICA_LABEL + "=" + name,
                            "store.grpc.tls-cert-file=" + certificate,
                            "store.grpc.tls-key-file=" + certificate.resolveSibling("server.key"))));
        }
        for (ServerLauncher l : launchers) {
            l.start();
        }
        for (ServerLauncher l : launchers) {
            l.current().awaitReady(ServerLauncher.READY_TIMEOUT);
        }
        querier = ThanosQuerier.start(thanos, storePorts, work.resolve("logs"), certificate);

        // rounds before the move, consumed, then the rounds after it: no instance sees a series out of order
        produce(kafka, topic, samples, 0, MOVE_ROUND, Duration.ZERO);
        progress.awaitCaughtUp(CATCH_UP);
        produce(kafka, topic, samples, MOVE_ROUND, ROUNDS, Duration.ZERO);
        progress.awaitCaughtUp(CATCH_UP);

        assertThat(seriesHeldByMoreThanOneInstance()).as("series split across instances").isGreaterThan(SERIES / 4);
        long t = SpreadSamples.timestampMs(ROUNDS - 1);
        awaitComplete(ROUNDS);

        JsonNode count = querier.query("count(" + SpreadSamples.METRIC + ")", t);
        assertThat(count.path("warnings").isMissingNode() || count.path("warnings").isEmpty()).isTrue();
        assertThat(scalarOf(count.path("data").path("result").get(0))).isEqualTo(SERIES);

        // 20 samples in (t - 5m, t], one per 15 s rising by 1: Prometheus' extrapolated rate per series
        double perSeries = 19.0 * ((300.0 / 285.0) / 300.0);
        JsonNode rate = querier.query("sum by (job) (rate(" + SpreadSamples.METRIC + "[5m]))", t);
        Map<String, Double> byJob = new TreeMap<>();
        for (JsonNode r : rate.path("data").path("result")) {
            byJob.put(r.path("metric").path("job").asText(), scalarOf(r));
        }
        assertThat(byJob).hasSize(SpreadSamples.JOBS);
        for (int j = 0; j < SpreadSamples.JOBS; j++) {
            assertThat(byJob.get("job-" + j)).isCloseTo(SERIES / SpreadSamples.JOBS * perSeries,
                    org.assertj.core.data.Offset.offset(1e-9));
        }

        assertExactly(ROUNDS, "1h", t);

        JsonNode series = querier.series(SpreadSamples.METRIC, SpreadSamples.START_MS, t);
        List<String> names = new ArrayList<>();
        for (JsonNode s : series.path("data")) {
            assertThat(s.has(ThanosQuerier.REPLICA_LABEL)).isFalse();
            String name = s.path("series").asText();
            assertThat(s.path("job").asText()).isEqualTo(SpreadSamples.job(Integer.parseInt(name.substring(1))));
            names.add(name);
        }
        assertThat(names).hasSize(SERIES).doesNotHaveDuplicates();

        // SIGKILL one instance while the producer writes; partial answers (with the warning) while it is down
        SampleProducer producer = new SampleProducer(kafka.bootstrapServers(), topic, samples, Duration.ofMillis(100),
                ROUNDS, MORE_ROUNDS);
        producer.start();
        try {
            Poll.until("the producer is a few rounds in", Duration.ofMinutes(1),
                    () -> producer.roundsAcknowledged() >= ROUNDS + 40, () -> "acknowledged " + producer.roundsAcknowledged());
            ServerLauncher victim = launchers.get(1);
            victim.current().kill();
            Poll.until("a partial-response warning from the Querier", Duration.ofSeconds(60), () -> {
                JsonNode answer = query("count(" + SpreadSamples.METRIC + ")", SpreadSamples.timestampMs(ROUNDS - 1));
                return answer.path("warnings").isArray() && !answer.path("warnings").isEmpty();
            }, querier::tail);
            Poll.until("the group has rebalanced without the killed instance", Duration.ofSeconds(90),
                    () -> members(kafka, group) == 2, () -> members(kafka, group) + " members");
            victim.startReady();
            assertThat(producer.awaitEnd(Duration.ofMinutes(5))).isEqualTo(MORE_ROUNDS);
        } finally {
            producer.close();
        }
        progress.awaitCaughtUp(CATCH_UP);
        awaitComplete(MORE_ROUNDS);
        JsonNode after = query("count(" + SpreadSamples.METRIC + ")", SpreadSamples.timestampMs(MORE_ROUNDS - 1));
        assertThat(after.path("warnings").isMissingNode() || after.path("warnings").isEmpty()).isTrue();
        assertExactly(MORE_ROUNDS, (MORE_ROUNDS * 15) + "s", SpreadSamples.timestampMs(MORE_ROUNDS - 1));
    }

    private static void produce(EmbeddedKafka kafka, String topic, SpreadSamples samples, int first, int end,
                                Duration interval) {
        try (SampleProducer p = new SampleProducer(kafka.bootstrapServers(), topic, samples, interval, first, end)) {
            p.start();
            p.awaitEnd(Duration.ofMinutes(3));
        }
    }

    /** Waits until the Querier counts every sample of rounds 0..rounds-1 (queries see what was consumed). */
    private void awaitComplete(int rounds) {
        long t = SpreadSamples.timestampMs(rounds - 1);
        String promql = "sum(count_over_time(" + SpreadSamples.METRIC + "[" + (rounds * 15) + "s]))";
        long expected = (long) SERIES * rounds;
        Poll.until("the Querier sees " + expected + " samples", CATCH_UP, () -> {
            JsonNode r = query(promql, t).path("data").path("result");
            return r.size() == 1 && scalarOf(r.get(0)) == expected;
        }, () -> query(promql, t).toString());
    }

    /** Every series' samples of rounds 0..rounds-1 through the Querier: each once, bit-exact, nothing else. */
    private void assertExactly(int rounds, String range, long t) throws IOException {
        JsonNode matrix = querier.query(SpreadSamples.METRIC + "[" + range + "]", t);
        assertThat(matrix.path("data").path("resultType").asText()).isEqualTo("matrix");
        Map<String, List<double[]>> got = new TreeMap<>();
        for (JsonNode s : matrix.path("data").path("result")) {
            assertThat(s.path("metric").has(ThanosQuerier.REPLICA_LABEL)).isFalse();
            List<double[]> values = new ArrayList<>();
            for (JsonNode v : s.path("values")) {
                values.add(new double[] {v.get(0).asDouble(), Double.parseDouble(v.get(1).asText())});
            }
            assertThat(got.put(s.path("metric").path("series").asText(), values)).as("series returned once").isNull();
        }
        assertThat(got).hasSize(SERIES);
        long lost = 0;
        long twice = 0;
        for (int s = 0; s < SERIES; s++) {
            List<double[]> values = got.get(SpreadSamples.seriesName(s));
            Map<Integer, Integer> seen = new HashMap<>();
            for (double[] v : values) {
                int round = (int) Math.round((v[0] * 1000 - SpreadSamples.START_MS) / SpreadSamples.STEP_MS);
                assertThat(v[1]).as("value of series %d round %d", s, round).isEqualTo(SpreadSamples.value(s, round));
                seen.merge(round, 1, Integer::sum);
            }
            for (int k = 0; k < rounds; k++) {
                int n = seen.getOrDefault(k, 0);
                lost += n == 0 ? 1 : 0;
                twice += Math.max(0, n - 1);
            }
            assertThat(seen.keySet()).allSatisfy(k -> assertThat(k).isBetween(0, rounds - 1));
        }
        assertThat(lost).as("samples lost").isZero();
        assertThat(twice).as("samples returned twice").isZero();
    }

    private JsonNode query(String promql, long t) {
        try {
            return querier.query(promql, t);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Series held by two or more instances, from each instance's own series API. */
    private int seriesHeldByMoreThanOneInstance() throws IOException {
        Map<String, Integer> holders = new LinkedHashMap<>();
        for (ServerLauncher l : launchers) {
            String body = l.current().get("/api/v1/series?match[]=" + URLEncoder.encode(SpreadSamples.METRIC,
                    StandardCharsets.UTF_8) + "&start=0&end=" + (SpreadSamples.timestampMs(ROUNDS) / 1000)).body();
            for (JsonNode s : JSON.readTree(body).path("data")) {
                holders.merge(s.path("series").asText(), 1, Integer::sum);
            }
        }
        assertThat(holders).hasSize(SERIES);
        return (int) holders.values().stream().filter(n -> n > 1).count();
    }

    private static int members(EmbeddedKafka kafka, String group) {
        try {
            return kafka.admin().describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                    .get(group).members().size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static double scalarOf(JsonNode vectorElement) {
        return Double.parseDouble(vectorElement.path("value").get(1).asText());
    }
}
