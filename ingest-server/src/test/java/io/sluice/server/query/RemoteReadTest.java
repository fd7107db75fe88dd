package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.core.chunk.XorIterator;
import io.sluice.server.TestHttp;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.query.pb.Remote.ChunkedReadResponse;
import io.sluice.server.query.pb.Remote.Query;
import io.sluice.server.query.pb.Remote.ReadRequest;
import io.sluice.server.query.pb.Remote.ReadResponse;
import io.sluice.server.query.pb.Types.Chunk;
import io.sluice.server.query.pb.Types.ChunkedSeries;
import io.sluice.server.query.pb.Types.Label;
import io.sluice.server.query.pb.Types.LabelMatcher;
import io.sluice.server.query.pb.Types.TimeSeries;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/read} over real HTTP, requests built and responses decoded with protobuf-java
 * classes generated from Prometheus' prompb remote.proto and types.proto: SAMPLES bit-exact,
 * STREAMED_XOR_CHUNKS frames (CRC, order, chunk bytes decoding to exactly what was appended),
 * matcher types, malformed requests and limits.
 */
class RemoteReadTest {
    private static final long STALE_BITS = 0x7ff0000000000002L;
    private static final long NAN_PAYLOAD_BITS = 0x7ff8000000000abcL;

    @TempDir
    Path dir;
    private QueryFixture fx;
    /** Appended samples by series (label map as text), {timestamp, bits}. */
    private final Map<String, List<long[]>> appended = new TreeMap<>();

    @BeforeEach
    void start() throws Exception {
        fx = new QueryFixture(dir);
        Random random = new Random(3);
        long[] specials = {STALE_BITS, NAN_PAYLOAD_BITS, Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), Double.doubleToRawLongBits(-0.0), 1L};
        for (int s = 0; s < 6; s++) {
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("__name__", s < 4 ? "rr" : "other");
            labels.put("job", s % 2 == 0 ? "even" : "odd");
            labels.put("i", "ü-" + s);
            int n = 50 + 150 * s; // several chunks for the larger series
            long[] ts = new long[n];
            double[] vs = new double[n];
            List<long[]> kept = new ArrayList<>();
            long t = 1_000;
            for (int k = 0; k < n; k++) {
                t += 1 + random.nextInt(20_000);
                long bits = k % 17 == 5 ? specials[k % specials.length] : Double.doubleToRawLongBits(random.nextGaussian());
                ts[k] = t;
                vs[k] = Double.longBitsToDouble(bits);
                kept.add(new long[] {t, bits});
            }
            fx.submit(labels, ts, vs);
            appended.put(new TreeMap<>(labels).toString(), kept);
        }
        fx.awaitApplied();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static LabelMatcher matcher(LabelMatcher.Type type, String name, String value) {
        return LabelMatcher.newBuilder().setType(type).setName(name).setValue(value).build();
    }

    private static Query query(long start, long end, LabelMatcher... matchers) {
        return Query.newBuilder().setStartTimestampMs(start).setEndTimestampMs(end).addAllMatchers(Arrays.asList(matchers)).build();
    }

    private HttpResponse<byte[]> post(byte[] raw) throws Exception {
        return post(fx, raw);
    }

    private static HttpResponse<byte[]> post(QueryFixture fx, byte[] raw) throws Exception {
        SnappyJavaCompressor snappy = new SnappyJavaCompressor();
        byte[] compressed = new byte[snappy.maxCompressedLength(raw.length)];
        int length = snappy.compress(raw, 0, raw.length, compressed, 0, compressed.length);
        return postRaw(fx, Arrays.copyOf(compressed, length));
    }

    private HttpResponse<byte[]> postRaw(byte[] body) throws Exception {
        return postRaw(fx, body);
    }

    private static HttpResponse<byte[]> postRaw(QueryFixture fx, byte[] body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(TestHttp.uri(fx.http.address(), "/api/v1/read"))
                .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
                .header("X-Prometheus-Remote-Read-Version", "0.1.0")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return java.net.http.HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String key(List<Label> labels) {
        Map<String, String> map = new TreeMap<>();
        labels.forEach(l -> map.put(l.getName(), l.getValue()));
        return map.toString();
    }

    private List<long[]> expected(String key, long start, long end) {
        return appended.get(key).stream().filter(s -> s[0] >= start && s[0] <= end).toList();
    }

    @Test
    void samplesResponseIsBitExactPerQueryInLabelOrder() throws Exception {
        ReadRequest request = ReadRequest.newBuilder()
                .addQueries(query(0, Long.MAX_VALUE, matcher(LabelMatcher.Type.EQ, "__name__", "rr")))
                .addQueries(query(200_000, 900_000, matcher(LabelMatcher.Type.RE, "job", "e.*"),
                        matcher(LabelMatcher.Type.NEQ, "__name__", "rr"), matcher(LabelMatcher.Type.NRE, "i", ".*5")))
                .build();
        HttpResponse<byte[]> r = post(request.toByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).contains("application/x-protobuf");
        assertThat(r.headers().firstValue("content-encoding")).contains("snappy");
        byte[] body = r.body();
        byte[] raw = new byte[(int) snappyPreamble(body)];
        new SnappyJavaDecompressor().decompress(body, 0, body.length, raw, 0, raw.length);
        ReadResponse response = ReadResponse.parseFrom(raw);
        assertThat(response.getResultsCount()).isEqualTo(2);

        List<TimeSeries> first = response.getResults(0).getTimeseriesList();
        assertThat(first).hasSize(4);
        List<String> keys = first.stream().map(ts -> key(ts.getLabelsList())).toList();
        assertThat(keys).containsExactlyElementsOf(appended.keySet().stream().filter(k -> k.contains("__name__=rr")).sorted().toList());
        for (TimeSeries ts : first) {
            assertSamples(ts, expected(key(ts.getLabelsList()), 0, Long.MAX_VALUE));
        }
        List<TimeSeries> second = response.getResults(1).getTimeseriesList();
        assertThat(second).hasSize(1); // other, even: i=ü-4 (ü-5 is odd)
        assertThat(key(second.getFirst().getLabelsList())).isEqualTo("{__name__=other, i=ü-4, job=even}");
        assertSamples(second.getFirst(), expected("{__name__=other, i=ü-4, job=even}", 200_000, 900_000));
    }

    private static void assertSamples(TimeSeries ts, List<long[]> expected) {
        assertThat(ts.getSamplesCount()).isEqualTo(expected.size());
        for (int k = 0; k < expected.size(); k++) {
            assertThat(ts.getSamples(k).getTimestamp()).isEqualTo(expected.get(k)[0]);
            assertThat(Double.doubleToRawLongBits(ts.getSamples(k).getValue())).isEqualTo(expected.get(k)[1]);
        }
    }

    @Test
    void streamedChunksAreFramedWithCrcAndDecodeToTheAppendedSamples() throws Exception {
        ReadRequest request = ReadRequest.newBuilder()
                .addQueries(query(0, Long.MAX_VALUE, matcher(LabelMatcher.Type.RE, "__name__", "rr|other")))
                .addQueries(query(400_000, 500_000, matcher(LabelMatcher.Type.EQ, "job", "odd")))
                .addAcceptedResponseTypes(ReadRequest.ResponseType.STREAMED_XOR_CHUNKS)
                .addAcceptedResponseTypes(ReadRequest.ResponseType.SAMPLES)
                .build();
        HttpResponse<byte[]> r = post(request.toByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type"))
                .contains("application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse");
        assertThat(r.headers().firstValue("content-encoding")).isEmpty();
        List<ChunkedReadResponse> frames = frames(r.body());
        List<ChunkedReadResponse> q0 = frames.stream().filter(f -> f.getQueryIndex() == 0).toList();
        List<ChunkedReadResponse> q1 = frames.stream().filter(f -> f.getQueryIndex() == 1).toList();
        assertThat(q0).hasSize(6);
        assertThat(frames.indexOf(q1.getFirst())).isEqualTo(6); // queries in order
        String previous = "";
        for (ChunkedReadResponse frame : q0) {
            assertThat(frame.getChunkedSeriesCount()).isEqualTo(1);
            ChunkedSeries series = frame.getChunkedSeries(0);
            String key = key(series.getLabelsList());
            assertThat(key).isGreaterThan(previous);
            previous = key;
            assertThat(decode(series)).containsExactlyElementsOf(asText(appended.get(key)));
        }
        for (ChunkedReadResponse frame : q1) {
            ChunkedSeries series = frame.getChunkedSeries(0);
            String key = key(series.getLabelsList());
            assertThat(key).contains("job=odd");
            for (Chunk chunk : series.getChunksList()) {
                assertThat(chunk.getMaxTimeMs()).isGreaterThanOrEqualTo(400_000);
                assertThat(chunk.getMinTimeMs()).isLessThanOrEqualTo(500_000);
            }
            List<String> samples = decode(series);
            assertThat(samples).containsAll(asText(expected(key, 400_000, 500_000)));
            assertThat(asText(appended.get(key))).containsSubsequence(samples); // whole chunks of what was appended
        }
    }

    /**
     * A series with samples stored out of order (inside head.out-of-order-window): both response types
     * give the one merged, time-ordered stream, and the chunks are time-ordered, each and one after another.
     */
    @Test
    void outOfOrderSamplesAreReadMergedAndChunksStayTimeOrdered() throws Exception {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("__name__", "late");
        labels.put("job", "even");
        TreeMap<Long, Long> stored = new TreeMap<>();
        long base = 20_000_000; // after every other series: the shard's newest is this series' own
        long[] ts = new long[300];
        double[] vs = new double[300];
        for (int k = 0; k < 300; k++) {
            ts[k] = base + k * 10_000L;
            vs[k] = k;
            stored.put(ts[k], Double.doubleToRawLongBits(vs[k]));
        }
        fx.submit(labels, ts, vs);
        long[] late = new long[150]; // between the in-order samples, within the last ~40 minutes, reversed
        double[] lateValues = new double[150];
        for (int k = 0; k < late.length; k++) {
            late[k] = base + (299 - k) * 10_000L - 5_000;
            lateValues[k] = -k;
            stored.put(late[k], Double.doubleToRawLongBits(lateValues[k]));
        }
        fx.submit(labels, late, lateValues);
        fx.awaitApplied();
        List<long[]> expected = new ArrayList<>();
        stored.forEach((t, bits) -> expected.add(new long[] {t, bits}));

        List<ChunkedReadResponse> frames = frames(streamedRead(fx, "late"));
        assertThat(frames).hasSize(1);
        ChunkedSeries series = frames.getFirst().getChunkedSeries(0);
        assertThat(decode(series)).containsExactlyElementsOf(asText(expected));
        long previous = Long.MIN_VALUE;
        for (Chunk chunk : series.getChunksList()) {
            assertThat(chunk.getMinTimeMs()).isGreaterThan(previous);
            previous = chunk.getMaxTimeMs();
        }

        ReadRequest samples = ReadRequest.newBuilder()
                .addQueries(query(base + 1_000_000, base + 2_000_000, matcher(LabelMatcher.Type.EQ, "__name__", "late"))).build();
        HttpResponse<byte[]> r = post(samples.toByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        byte[] body = r.body();
        byte[] raw = new byte[(int) snappyPreamble(body)];
        new SnappyJavaDecompressor().decompress(body, 0, body.length, raw, 0, raw.length);
        TimeSeries only = ReadResponse.parseFrom(raw).getResults(0).getTimeseries(0);
        assertSamples(only, expected.stream().filter(x -> x[0] >= base + 1_000_000 && x[0] <= base + 2_000_000).toList());
    }

    /** POSTs a STREAMED_XOR_CHUNKS read of every series named {@code metric}; the raw body. */
    static byte[] streamedRead(QueryFixture fx, String metric) throws Exception {
        ReadRequest request = ReadRequest.newBuilder()
                .addQueries(query(Long.MIN_VALUE, Long.MAX_VALUE, matcher(LabelMatcher.Type.EQ, "__name__", metric)))
                .addAcceptedResponseTypes(ReadRequest.ResponseType.STREAMED_XOR_CHUNKS).build();
        HttpResponse<byte[]> r = post(fx, request.toByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    static List<ChunkedReadResponse> frames(byte[] body) throws Exception {
        List<ChunkedReadResponse> frames = new ArrayList<>();
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
        while (in.available() > 0) {
            long size = 0;
            for (int shift = 0; ; shift += 7) {
                int b = in.readUnsignedByte();
                size |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    break;
                }
            }
            int crc = in.readInt();
            byte[] message = in.readNBytes((int) size);
            CRC32C check = new CRC32C();
            check.update(message);
            assertThat((int) check.getValue()).isEqualTo(crc);
            frames.add(ChunkedReadResponse.parseFrom(message));
        }
        return frames;
    }

    private static List<String> decode(ChunkedSeries series) {
        List<String> samples = new ArrayList<>();
        for (Chunk chunk : series.getChunksList()) {
            assertThat(chunk.getType()).isEqualTo(Chunk.Encoding.XOR);
            XorIterator it = new XorIterator().reset(chunk.getData().toByteArray());
            long first = Long.MIN_VALUE;
            long last = Long.MIN_VALUE;
            while (it.next()) {
                first = first == Long.MIN_VALUE ? it.timestampMs() : first;
                last = it.timestampMs();
                samples.add(it.timestampMs() + "=" + Long.toHexString(it.valueBits()));
            }
            assertThat(it.hasError()).isFalse();
            assertThat(chunk.getMinTimeMs()).isEqualTo(first);
            assertThat(chunk.getMaxTimeMs()).isEqualTo(last);
        }
        return samples;
    }

    private static List<String> asText(List<long[]> samples) {
        return samples.stream().map(s -> s[0] + "=" + Long.toHexString(s[1])).toList();
    }

    @Test
    void malformedRequestsAre400() throws Exception {
        assertThat(postRaw(new byte[] {5, 1, 2}).statusCode()).isEqualTo(400);
        HttpResponse<byte[]> badProto = post(new byte[] {0x0A, 0x7F, 0x01});
        assertThat(badProto.statusCode()).isEqualTo(400);
        assertThat(new String(badProto.body())).contains("malformed remote-read request");
        HttpResponse<byte[]> badRegex = post(ReadRequest.newBuilder()
                .addQueries(query(0, 1, matcher(LabelMatcher.Type.RE, "a", "("))).build().toByteArray());
        assertThat(badRegex.statusCode()).isEqualTo(400);
        byte[] unknownType = {0x10, 0x07}; // accepted_response_types = [7], unpacked
        assertThat(new String(post(unknownType).body())).contains("none of the accepted response types [7] is supported");
    }

    @Test
    void seriesOverTheLimitAre422(@TempDir Path other) throws Exception {
        fx.close();
        fx = new QueryFixture(other, 1, new QueryOptions(1, 1000, 300_000));
        fx.append(Map.of("__name__", "a", "i", "1"), new long[] {1}, new double[] {1});
        fx.append(Map.of("__name__", "a", "i", "2"), new long[] {1}, new double[] {1});
        HttpResponse<byte[]> r = post(ReadRequest.newBuilder()
                .addQueries(query(0, 10, matcher(LabelMatcher.Type.EQ, "__name__", "a"))).build().toByteArray());
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(new String(r.body())).contains("query.max-series");
    }

    /** The uvarint preamble of a snappy block: the uncompressed length. */
    private static long snappyPreamble(byte[] block) {
        long v = 0;
        for (int i = 0, shift = 0; ; i++, shift += 7) {
            v |= (long) (block[i] & 0x7F) << shift;
            if (block[i] >= 0) {
                return v;
            }
        }
    }
}
