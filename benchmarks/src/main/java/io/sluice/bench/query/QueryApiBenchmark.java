package io.sluice.bench.query;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.http.HttpServer;
import io.sluice.server.http.Router;
import io.sluice.server.query.QueryApi;
import io.sluice.server.config.QueryOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The read side end to end: a head of 1,000 node-exporter-like series x 1,000 samples (15 s apart)
 * in two shards, the query API on a real HTTP port, and a java.net.http client reading the whole
 * answer: export (JSON lines), remote-read SAMPLES (snappy protobuf) and STREAMED_XOR_CHUNKS.
 * {@code values}: {@code counter} (whole numbers, the JSON fast path) or {@code gauge} (random
 * doubles, shortest-decimal formatting). Score: ns per sample of the answer, client included.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
public class QueryApiBenchmark extends AbstractBenchmark {
    static final int SERIES = 1_000;
    static final int SAMPLES_PER_SERIES = 1_000;
    static final int SAMPLES = SERIES * SAMPLES_PER_SERIES;

    @Param({"counter", "gauge"})
    public String values;

    private Head head;
    private HttpServer http;
    private PrometheusMeterRegistry registry;
    private HttpClient client;
    private URI base;
    private byte[] readSamples;
    private byte[] readChunks;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path base = Path.of(System.getProperty("sluice.bench.dir", "/work/bench-tmp"));
        Files.createDirectories(base);
        Path dir = Files.createTempDirectory(base, "query");
        head = new Head(HeadOptions.defaults(dir).withShards(2).withPerShard(s -> s.withWalSegmentBytes(64 << 20)), new StreamRegistry(),
                new MemoryAccounting());
        head.start();
        feed();
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        http = HttpServer.start("127.0.0.1", 0, QueryApi.addTo(new Router(), head,
                new QueryOptions(1_000_000, 100_000_000, 300_000), registry, System::currentTimeMillis));
        client = HttpClient.newHttpClient();
        this.base = URI.create("http://127.0.0.1:" + http.address().getPort());
        readSamples = readRequest(false);
        readChunks = readRequest(true);
    }

    private void feed() {
        Random random = new Random(1);
        LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);
        byte[][] labels = new byte[SERIES][];
        long[] hashes = new long[SERIES];
        for (int s = 0; s < SERIES; s++) {
            builder.reset().add("__name__", "node_cpu_seconds_total").add("cpu", Integer.toString(s % 16))
                    .add("instance", "host-" + (s / 16) + ".example.org:9100").add("job", "node")
                    .add("mode", "m" + (s % 8));
            builder.build();
            labels[s] = Arrays.copyOf(builder.bytes(), builder.length());
            hashes[s] = builder.hash();
        }
        int stream = head.streams().idOf("bench", 0);
        for (int r = 0; r < SAMPLES_PER_SERIES; r++) {
            ShardBatch[] batches = new ShardBatch[head.shardCount()];
            for (int i = 0; i < batches.length; i++) {
                batches[i] = acquire(i);
                batches[i].record(stream, r);
            }
            for (int s = 0; s < SERIES; s++) {
                ShardBatch batch = batches[head.shardOf(hashes[s])];
                double v = values.equals("counter") ? (double) r * 15 + s : random.nextGaussian() * 100;
                batch.series(hashes[s], labels[s], 0, labels[s].length);
                batch.sample(1_700_000_000_000L + r * 15_000L, Double.doubleToRawLongBits(v));
            }
            for (int i = 0; i < batches.length; i++) {
                batches[i].watermark(stream, r);
                head.shard(i).submit(batches[i]);
            }
        }
        while (head.durableWatermark(stream) < SAMPLES_PER_SERIES - 1) {
            head.requestSync();
            LockSupport.parkNanos(1_000_000);
        }
    }

    private ShardBatch acquire(int shard) {
        ShardBatch batch;
        while ((batch = head.shard(shard).acquireBatch()) == null) {
            LockSupport.parkNanos(100_000);
        }
        return batch;
    }

    /** ReadRequest{queries: [{0, max, [__name__="node_cpu_seconds_total"]}], accepted_response_types: [chunks?]}, snappy. */
    private static byte[] readRequest(boolean chunks) {
        byte[] name = "__name__".getBytes(StandardCharsets.UTF_8);
        byte[] value = "node_cpu_seconds_total".getBytes(StandardCharsets.UTF_8);
        byte[] matcher = concat(new byte[] {0x12, (byte) name.length}, name, new byte[] {0x1A, (byte) value.length}, value);
        byte[] end = {0x10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, 0x7F};
        byte[] query = concat(end, new byte[] {0x1A, (byte) matcher.length}, matcher);
        byte[] request = concat(new byte[] {0x0A, (byte) query.length}, query, chunks ? new byte[] {0x10, 0x01} : new byte[0]);
        SnappyJavaCompressor snappy = new SnappyJavaCompressor();
        byte[] out = new byte[snappy.maxCompressedLength(request.length)];
        return Arrays.copyOf(out, snappy.compress(request, 0, request.length, out, 0, out.length));
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        http.close();
        head.close();
        registry.close();
    }

    private long drain(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + response.statusCode());
        }
        long bytes = 0;
        byte[] buffer = new byte[64 << 10];
        try (InputStream in = response.body()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                bytes += n;
            }
        }
        return bytes;
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long export() throws Exception {
        return drain(HttpRequest.newBuilder(base.resolve("/api/v1/export?match[]=node_cpu_seconds_total")).build());
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long remoteReadSamples() throws Exception {
        return drain(HttpRequest.newBuilder(base.resolve("/api/v1/read"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(readSamples)).build());
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long remoteReadChunks() throws Exception {
        return drain(HttpRequest.newBuilder(base.resolve("/api/v1/read"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(readChunks)).build());
    }
}
