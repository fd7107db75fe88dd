package io.sluice.server.query;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.TestHeads;
import io.sluice.server.TestHttp;
import io.sluice.server.config.HttpOptions;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.http.HttpServer;
import io.sluice.server.http.Router;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real head in a temporary directory, fed through its batch API as the consumers feed it, and the
 * query API on a real HTTP port of 127.0.0.1. Tests append series, wait until the shards applied
 * them, and ask over HTTP (the StoreAPI tests ask over gRPC).
 */
public final class QueryFixture implements AutoCloseable {
    static final String TOPIC = "query-test";

    public final Head head;
    final HttpServer http;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final AtomicLong nowMs = new AtomicLong(1_700_000_000_000L);
    private long offset = -1;

    public QueryFixture(Path dir, int shards, QueryOptions options) throws IOException {
        this(dir, shards, options, HttpOptions.defaults());
    }

    QueryFixture(Path dir, int shards, QueryOptions options, HttpOptions httpOptions) throws IOException {
        head = new Head(TestHeads.options(dir, shards), new StreamRegistry(), new MemoryAccounting());
        head.start();
        Router router = new Router();
        QueryApi.addTo(router, head, options, registry, nowMs::get);
        http = HttpServer.start("127.0.0.1", 0, httpOptions, router, registry);
    }

    QueryFixture(Path dir) throws IOException {
        this(dir, 2, QueryOptions.DEFAULTS);
    }

    /** Appends one series' samples as one Kafka record and waits until every shard applied it. */
    public void append(Map<String, String> labels, long[] timestampsMs, double[] values) {
        submit(labels, timestampsMs, values);
        awaitApplied();
    }

    /** Appends without waiting (concurrency tests); returns the record's offset. */
    public long submit(Map<String, String> labels, long[] timestampsMs, double[] values) {
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT).reset();
        labels.forEach(builder::add);
        if (builder.build() != LabelsStatus.OK) {
            throw new IllegalArgumentException("labels rejected: " + labels);
        }
        int stream = head.streams().idOf(TOPIC, 0);
        long recordOffset = ++offset;
        int target = head.shardOf(builder.hash());
        for (int s = 0; s < head.shardCount(); s++) {
            ShardBatch batch = acquire(s);
            if (s == target) {
                batch.record(stream, recordOffset);
                if (!batch.series(builder.hash(), builder.bytes(), 0, builder.length())) {
                    throw new IllegalStateException("test series too large for a batch");
                }
                for (int i = 0; i < timestampsMs.length; i++) {
                    if (!batch.sample(timestampsMs[i], Double.doubleToRawLongBits(values[i]))) {
                        throw new IllegalStateException("test batch full");
                    }
                }
            }
            batch.watermark(stream, recordOffset);
            head.shard(s).submit(batch);
        }
        return recordOffset;
    }

    /** Appends one sample per series at {@code timestampMs}, all in one Kafka record, without waiting. */
    void submitRound(List<Map<String, String>> series, long timestampMs, double[] values) {
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        int stream = head.streams().idOf(TOPIC, 0);
        long recordOffset = ++offset;
        ShardBatch[] batches = new ShardBatch[head.shardCount()];
        for (int i = 0; i < series.size(); i++) {
            builder.reset();
            series.get(i).forEach(builder::add);
            if (builder.build() != LabelsStatus.OK) {
                throw new IllegalArgumentException("labels rejected: " + series.get(i));
            }
            int s = head.shardOf(builder.hash());
            if (batches[s] == null) {
                batches[s] = acquire(s);
                batches[s].record(stream, recordOffset);
            }
            if (!batches[s].series(builder.hash(), builder.bytes(), 0, builder.length())
                    || !batches[s].sample(timestampMs, Double.doubleToRawLongBits(values[i]))) {
                throw new IllegalStateException("test batch full");
            }
        }
        for (int s = 0; s < batches.length; s++) {
            ShardBatch batch = batches[s] != null ? batches[s] : acquire(s);
            batch.watermark(stream, recordOffset);
            head.shard(s).submit(batch);
        }
    }

    public void awaitApplied() {
        TestHeads.awaitDurable(head, TOPIC, 0, offset);
    }

    private ShardBatch acquire(int shard) {
        ShardBatch[] batch = new ShardBatch[1];
        TestHeads.await(() -> (batch[0] = head.shard(shard).acquireBatch()) != null, "a free batch");
        return batch[0];
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return TestHttp.get(http.address(), path);
    }

    HttpResponse<String> postForm(String path, String form) throws IOException, InterruptedException {
        return TestHttp.send(HttpRequest.newBuilder(TestHttp.uri(http.address(), path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        http.close();
        head.close();
        registry.close();
    }
}
