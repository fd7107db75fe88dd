package io.sluice.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.server.config.StoreApiOptions;
import io.sluice.server.query.QueryFixture;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.store.proto.AggrChunk;
import io.sluice.server.store.proto.Chunk;
import io.sluice.server.store.proto.InfoGrpc;
import io.sluice.server.store.proto.InfoRequest;
import io.sluice.server.store.proto.InfoResponse;
import io.sluice.server.store.proto.Label;
import io.sluice.server.store.proto.LabelMatcher;
import io.sluice.server.store.proto.LabelNamesRequest;
import io.sluice.server.store.proto.LabelValuesRequest;
import io.sluice.server.store.proto.Series;
import io.sluice.server.store.proto.SeriesRequest;
import io.sluice.server.store.proto.SeriesResponse;
import io.sluice.server.store.proto.StoreGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The StoreAPI over a real socket: a real head fed as the consumers feed it, the real gRPC server,
 * and grpc-java stubs generated from the same wire declarations a Thanos Querier speaks. Chunks are
 * compared byte for byte with what the head holds and decoded independently against what was
 * appended; time pruning, every matcher type (regex and UTF-8 names included), skip_chunks, external
 * labels, limits answered with RESOURCE_EXHAUSTED, Info, label names/values and health.
 */
class StoreApiWireTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String UTF8_NAME = "ünïcødé.name";

    @TempDir
    Path dir;
    private QueryFixture fx;
    private StoreApiServer server;
    private ManagedChannel channel;
    private StoreGrpc.StoreBlockingStub store;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Appended samples per series (sorted label map as text): {timestamp, value bits}. */
    private final Map<String, List<long[]>> appended = new TreeMap<>();

    private void start(QueryOptions limits, Map<String, String> external) throws Exception {
        fx = new QueryFixture(dir, 2, limits);
        Random random = new Random(16);
        for (int s = 0; s < 8; s++) {
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("__name__", s < 6 ? "http_requests_total" : "other_metric");
            labels.put("job", s % 2 == 0 ? "api" : "web");
            labels.put("instance", "host-" + s);
            if (s == 3) {
                labels.put(UTF8_NAME, "wert-ß");
            }
            int n = 100 + 130 * s; // several closed chunks (120 samples each) and an open one
            long[] ts = new long[n];
            double[] vs = new double[n];
            List<long[]> kept = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                ts[k] = T0 + 15_000L * k;
                vs[k] = k % 11 == 0 ? random.nextGaussian() : k * 1.5;
                kept.add(new long[] {ts[k], Double.doubleToRawLongBits(vs[k])});
            }
            fx.submit(labels, ts, vs);
            appended.put(new TreeMap<>(labels).toString(), kept);
        }
        fx.awaitApplied();
        server = StoreApiServer.start(new StoreApiOptions("127.0.0.1", 0, external, 1 << 20, null, null), fx.head,
                limits, 2, registry, () -> null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        store = StoreGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (fx != null) {
            fx.close();
        }
        registry.close();
    }

    private static LabelMatcher m(LabelMatcher.Type type, String name, String value) {
        return LabelMatcher.newBuilder().setType(type).setName(name).setValue(value).build();
    }

    private List<Series> series(SeriesRequest request) {
        List<Series> out = new ArrayList<>();
        for (Iterator<SeriesResponse> it = store.series(request); it.hasNext(); ) {
            SeriesResponse r = it.next();
            assertThat(r.hasSeries()).as("only series responses").isTrue();
            out.add(r.getSeries());
        }
        return out;
    }

    private static SeriesRequest.Builder request(long min, long max, LabelMatcher... matchers) {
        return SeriesRequest.newBuilder().setMinTime(min).setMaxTime(max).addAllMatchers(List.of(matchers));
    }

    private static Map<String, String> labels(Series s) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Label l : s.getLabelsList()) {
            out.put(l.getName(), l.getValue());
        }
        return out;
    }

    @Test
    void seriesStreamsTheHeadsChunksByteForByte() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of());
        List<Series> got = series(request(Long.MIN_VALUE, Long.MAX_VALUE,
                m(LabelMatcher.Type.EQ, "__name__", "http_requests_total")).build());
        assertThat(got).hasSize(6);

        HeadQuery query = fx.head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.eq("__name__", "http_requests_total"));
        SeriesSnapshot.ExactChunk exact = new SeriesSnapshot.ExactChunk();
        int i = 0;
        while (query.next()) {
            Series s = got.get(i++);
            assertThat(labels(s)).isEqualTo(new TreeMap<>(query.labels().toMap()));
            SeriesSnapshot snapshot = query.snapshot();
            assertThat(s.getChunksCount()).isEqualTo(snapshot.chunkCount()).isGreaterThan(0);
            for (int c = 0; c < snapshot.chunkCount(); c++) {
                snapshot.exactChunk(c, exact);
                AggrChunk chunk = s.getChunks(c);
                assertThat(chunk.getRaw().getType()).isEqualTo(Chunk.Encoding.XOR);
                assertThat(chunk.getRaw().getData().toByteArray())
                        .isEqualTo(exact.toByteArray());
                assertThat(chunk.getMinTime()).isEqualTo(exact.minTimeMs());
                assertThat(chunk.getMaxTime()).isEqualTo(exact.maxTimeMs());
            }
        }
        assertThat(i).isEqualTo(6);
        // decoded independently of the head: exactly the samples appended, in order, bit for bit
        for (Series s : got) {
            List<long[]> decoded = decode(s);
            List<long[]> expected = appended.get(new TreeMap<>(labels(s)).toString());
            assertThat(decoded).hasSameSizeAs(expected);
            for (int k = 0; k < expected.size(); k++) {
                assertThat(decoded.get(k)).containsExactly(expected.get(k));
            }
        }
        // label order (Prometheus' labels.Compare over the sorted sets)
        for (int k = 1; k < got.size(); k++) {
            assertThat(StoreLabels.compareLabelSets(got.get(k - 1).getLabelsList(), got.get(k).getLabelsList()))
                    .isNegative();
        }
    }

    private static List<long[]> decode(Series s) {
        List<long[]> out = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (AggrChunk c : s.getChunksList()) {
            XorIterator it = new XorIterator().reset(c.getRaw().getData().toByteArray());
            while (it.next()) {
                assertThat(it.timestampMs()).isGreaterThan(previous);
                previous = it.timestampMs();
                out.add(new long[] {it.timestampMs(), it.valueBits()});
            }
            assertThat(it.hasError()).isFalse();
        }
        return out;
    }

    @Test
    void timeRangePrunesChunksAndSeries() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of());
        // samples 300..400 of each series: the 2 smallest series (100, 230 samples) end before
        long min = T0 + 15_000L * 300;
        long max = T0 + 15_000L * 400;
        List<Series> got = series(request(min, max, m(LabelMatcher.Type.RE, "__name__", ".+")).build());
        assertThat(got).hasSize(6);
        for (Series s : got) {
            assertThat(s.getChunksList()).allSatisfy(c -> {
                assertThat(c.getMaxTime()).isGreaterThanOrEqualTo(min);
                assertThat(c.getMinTime()).isLessThanOrEqualTo(max);
            });
            // every appended sample in range is in a sent chunk
            List<long[]> decoded = decode(s);
            long inRange = appended.get(new TreeMap<>(labels(s)).toString()).stream()
                    .filter(x -> x[0] >= min && x[0] <= max).count();
            assertThat(decoded.stream().filter(x -> x[0] >= min && x[0] <= max).count()).isEqualTo(inRange);
            assertThat(s.getChunksCount()).isLessThan(4); // 101 samples touch at most 2..3 chunks of 120
        }
        assertThat(series(request(T0 - 10_000, T0 - 1, m(LabelMatcher.Type.RE, "__name__", ".+")).build())).isEmpty();
    }

    @Test
    void matchersOfEveryTypeIncludingRegexAndUtf8Names() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of());
        SeriesRequest.Builder all = request(Long.MIN_VALUE, Long.MAX_VALUE).setSkipChunks(true);
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.EQ, "job", "api")).build()))
                .extracting(s -> labels(s).get("instance")).containsExactly("host-0", "host-2", "host-4", "host-6");
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.NEQ, "job", "api"))
                .addMatchers(m(LabelMatcher.Type.EQ, "__name__", "http_requests_total")).build()))
                .extracting(s -> labels(s).get("instance")).containsExactly("host-1", "host-3", "host-5");
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.RE, "instance", "host-[1-3]")).build()))
                .extracting(s -> labels(s).get("instance")).containsExactly("host-1", "host-2", "host-3");
        // regexes are anchored: "host-1" does not match "host-1x", ".*-1" matches only host-1
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.RE, "instance", ".*-1")).build())).hasSize(1);
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.NRE, "instance", "host-[0-6]"))
                .addMatchers(m(LabelMatcher.Type.RE, "__name__", "other.*")).build()))
                .extracting(s -> labels(s).get("instance")).containsExactly("host-7");
        List<Series> utf8 = series(all.clone().addMatchers(m(LabelMatcher.Type.RE, UTF8_NAME, "wert-.")).build());
        assertThat(utf8).hasSize(1);
        assertThat(labels(utf8.get(0))).containsEntry(UTF8_NAME, "wert-ß").containsEntry("instance", "host-3");
        // a label's absence is the empty value
        assertThat(series(all.clone().addMatchers(m(LabelMatcher.Type.EQ, UTF8_NAME, ""))
                .addMatchers(m(LabelMatcher.Type.EQ, "job", "web")).build())).hasSize(3);
        assertThatThrownBy(() -> series(all.clone().addMatchers(m(LabelMatcher.Type.RE, "job", "(")).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }

    @Test
    void skipChunksSendsLabelsOnly() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of());
        List<Series> got = series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.RE, "__name__", ".+"))
                .setSkipChunks(true).build());
        assertThat(got).hasSize(8).allSatisfy(s -> assertThat(s.getChunksCount()).isZero());
        assertThat(got).extracting(s -> new TreeMap<>(labels(s)).toString()).containsExactlyInAnyOrderElementsOf(appended.keySet());
    }

    @Test
    void limitsAnswerResourceExhausted() throws Exception {
        start(new QueryOptions(3, 500, 300_000), Map.of());
        assertThatThrownBy(() -> series(request(Long.MIN_VALUE, Long.MAX_VALUE,
                m(LabelMatcher.Type.RE, "__name__", ".+")).setSkipChunks(true).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).contains("query.max-series");
                });
        // 100 + 230 samples fit 500, the third series (360 more) does not
        assertThatThrownBy(() -> series(request(Long.MIN_VALUE, Long.MAX_VALUE,
                m(LabelMatcher.Type.RE, "instance", "host-[0-2]")).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).contains("query.max-samples");
                });
        assertThat(series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.RE, "instance", "host-[0-1]"))
                .build())).hasSize(2);
        assertThat(registry.scrape()).contains("sluice_storeapi_rejected_total{reason=\"max_series\"} 1.0")
                .contains("sluice_storeapi_rejected_total{reason=\"max_samples\"} 1.0");
    }

    @Test
    void externalLabelsAreAddedMatchedAdvertisedAndLeftOutOnRequest() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of("cluster", "eu1", "a_replica", "r1"));
        List<Series> got = series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.EQ, "cluster", "eu1"),
                m(LabelMatcher.Type.EQ, "job", "web")).setSkipChunks(true).build());
        assertThat(got).hasSize(4).allSatisfy(s -> assertThat(labels(s))
                .containsEntry("cluster", "eu1").containsEntry("a_replica", "r1"));
        assertThat(got.get(0).getLabels(0).getName()).isEqualTo("__name__"); // sorted: "__name__" < "a_replica"
        for (int k = 1; k < got.size(); k++) {
            assertThat(StoreLabels.compareLabelSets(got.get(k - 1).getLabelsList(), got.get(k).getLabelsList()))
                    .isNegative();
        }
        assertThat(series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.EQ, "cluster", "us1"),
                m(LabelMatcher.Type.EQ, "job", "web")).build())).isEmpty();
        List<Series> without = series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.EQ, "job", "web"))
                .addWithoutReplicaLabels("a_replica").setSkipChunks(true).build());
        assertThat(without).hasSize(4).allSatisfy(s -> assertThat(labels(s)).doesNotContainKey("a_replica"));
        // without the instance label the head's order (by instance, jobs alternating) is no longer sorted
        List<Series> withoutInstance = series(request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.RE, "__name__", ".+"))
                .addWithoutReplicaLabels("instance").setSkipChunks(true).build());
        assertThat(withoutInstance).hasSize(8).allSatisfy(s -> assertThat(labels(s)).doesNotContainKey("instance"));
        for (int k = 1; k < withoutInstance.size(); k++) {
            assertThat(StoreLabels.compareLabelSets(withoutInstance.get(k - 1).getLabelsList(),
                    withoutInstance.get(k).getLabelsList())).isNotPositive();
        }

        InfoResponse info = InfoGrpc.newBlockingStub(channel).info(InfoRequest.getDefaultInstance());
        assertThat(info.getComponentType()).isEqualTo("store");
        assertThat(info.getLabelSetsList()).hasSize(1);
        assertThat(info.getLabelSets(0).getLabelsList()).extracting(Label::getName).containsExactly("a_replica", "cluster");
        assertThat(info.getStore().getMinTime()).isEqualTo(T0);
        assertThat(info.getStore().getMaxTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(info.getStore().getSupportsWithoutReplicaLabels()).isTrue();

        assertThat(store.labelNames(LabelNamesRequest.newBuilder().build()).getNamesList())
                .containsExactly("__name__", "a_replica", "cluster", "instance", "job", UTF8_NAME);
        assertThat(store.labelValues(LabelValuesRequest.newBuilder().setLabel("job").build()).getValuesList())
                .containsExactly("api", "web");
        assertThat(store.labelValues(LabelValuesRequest.newBuilder().setLabel("instance").setStart(Long.MIN_VALUE)
                .setEnd(Long.MAX_VALUE).addMatchers(m(LabelMatcher.Type.EQ, "__name__", "other_metric")).build())
                .getValuesList()).containsExactly("host-6", "host-7");
        assertThat(store.labelValues(LabelValuesRequest.newBuilder().setLabel("cluster").build()).getValuesList())
                .containsExactly("eu1");
        assertThat(store.labelNames(LabelNamesRequest.newBuilder().setStart(Long.MIN_VALUE).setEnd(Long.MAX_VALUE)
                .addMatchers(m(LabelMatcher.Type.EQ, "instance", "host-3")).build()).getNamesList())
                .containsExactly("__name__", "a_replica", "cluster", "instance", "job", UTF8_NAME);

        HealthCheckResponse health = HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance());
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void batchedResponsesCarryTheSameSeriesInTheSameOrder() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of());
        SeriesRequest one = request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.RE, "__name__", ".+")).build();
        List<Series> single = series(one);
        assertThat(single).hasSize(8);
        for (int batchSize : new int[] {3, 8, 64}) {
            assertThat(batched(one.toBuilder().setResponseBatchSize(batchSize).build(), batchSize)).isEqualTo(single);
        }
        assertThat(batched(one.toBuilder().setResponseBatchSize(3).setSkipChunks(true).build(), 3))
                .isEqualTo(series(one.toBuilder().setSkipChunks(true).build()));
    }

    @Test
    void batchedSortedAnswerWithExternalLabels() throws Exception {
        start(QueryOptions.DEFAULTS, Map.of("cluster", "eu1", "replica", "a"));
        SeriesRequest one = request(Long.MIN_VALUE, Long.MAX_VALUE, m(LabelMatcher.Type.RE, "__name__", ".+"))
                .addWithoutReplicaLabels("replica").build();
        List<Series> single = series(one);
        assertThat(single).hasSize(8).allSatisfy(s -> assertThat(labels(s))
                .containsEntry("cluster", "eu1").doesNotContainKey("replica"));
        assertThat(batched(one.toBuilder().setResponseBatchSize(5).build(), 5)).isEqualTo(single);
    }

    /** The series of a call asked for in batches, each response a batch of at most {@code batchSize}. */
    private List<Series> batched(SeriesRequest request, int batchSize) {
        List<Series> out = new ArrayList<>();
        for (Iterator<SeriesResponse> it = store.series(request); it.hasNext(); ) {
            SeriesResponse r = it.next();
            assertThat(r.hasBatch()).as("batch responses").isTrue();
            assertThat(r.getBatch().getSeriesCount()).isBetween(1, batchSize);
            out.addAll(r.getBatch().getSeriesList());
        }
        return out;
    }
}
