package io.sluice.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.sluice.server.store.proto.AggrChunk;
import io.sluice.server.store.proto.Chunk;
import io.sluice.server.store.proto.Label;
import io.sluice.server.store.proto.Series;
import io.sluice.server.store.proto.SeriesBatch;
import io.sluice.server.store.proto.SeriesResponse;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hand encoder against protobuf-java: the same series built as library messages serialize to
 * the very bytes the encoder writes, and the library parses the encoder's bytes back to them —
 * one series per message and batches, UTF-8 labels, times of every varint size (0, negative,
 * large), empty and large chunks, series dropped, taken out and added back, and the gRPC stream.
 */
class SeriesResponseEncoderTest {
    private final Random random = new Random(1616);

    private Series randomSeries() {
        Series.Builder s = Series.newBuilder();
        int labels = 1 + random.nextInt(6);
        for (int i = 0; i < labels; i++) {
            String name = i == 0 ? "__name__" : (random.nextBoolean() ? "lbl" + i : "ünï_" + i);
            String value = random.nextInt(10) == 0 ? "" : "v-ß-" + "x".repeat(random.nextInt(200));
            s.addLabels(Label.newBuilder().setName(name).setValue(value));
        }
        int chunks = random.nextInt(5);
        for (int c = 0; c < chunks; c++) {
            long[] times = {0, -1, 1, 1_700_000_000_000L, Long.MIN_VALUE, Long.MAX_VALUE, random.nextLong()};
            byte[] data = new byte[random.nextInt(3) == 0 ? random.nextInt(20_000) : random.nextInt(300)];
            random.nextBytes(data);
            s.addChunks(AggrChunk.newBuilder()
                    .setMinTime(times[random.nextInt(times.length)])
                    .setMaxTime(times[random.nextInt(times.length)])
                    .setRaw(Chunk.newBuilder().setType(Chunk.Encoding.XOR).setData(ByteString.copyFrom(data))));
        }
        return s.build();
    }

    /** Encodes {@code s} the way StoreService does, its labels from a byte array at an offset ({@code shift}: 0 or more). */
    private static void encode(SeriesResponseEncoder encoder, Series s, boolean shift) {
        encoder.beginSeries();
        int at = shift ? 3 : 0;
        for (Label l : s.getLabelsList()) {
            byte[] name = l.getName().getBytes(StandardCharsets.UTF_8);
            byte[] value = l.getValue().getBytes(StandardCharsets.UTF_8);
            byte[] both = new byte[at + 1 + name.length + value.length];
            System.arraycopy(name, 0, both, at, name.length);
            System.arraycopy(value, 0, both, at + 1 + name.length, value.length);
            encoder.label(both, at, name.length, at + 1 + name.length, value.length);
        }
        for (AggrChunk c : s.getChunksList()) {
            byte[] data = c.getRaw().getData().toByteArray();
            byte[] padded = new byte[data.length + 7];
            System.arraycopy(data, 0, padded, 5, data.length);
            encoder.chunk(c.getMinTime(), c.getMaxTime(), padded, 5, data.length);
        }
    }

    @Test
    void oneSeriesPerMessageIsWhatTheLibraryWrites() throws Exception {
        SeriesResponseEncoder encoder = new SeriesResponseEncoder();
        for (long batchSize : new long[] {0, 1}) {
            encoder.reset(batchSize);
            for (int i = 0; i < 300; i++) {
                Series s = randomSeries();
                encode(encoder, s, i % 2 == 0);
                encoder.endSeries();
                assertThat(encoder.full()).isTrue();
                SeriesResponse expected = SeriesResponse.newBuilder().setSeries(s).build();
                byte[] got = drain(encoder.message());
                assertThat(got).isEqualTo(expected.toByteArray());
                assertThat(SeriesResponse.parseFrom(got)).isEqualTo(expected);
                encoder.sent();
            }
        }
    }

    @Test
    void batchesAreWhatTheLibraryWrites() throws Exception {
        SeriesResponseEncoder encoder = new SeriesResponseEncoder();
        encoder.reset(64);
        for (int round = 0; round < 20; round++) {
            SeriesBatch.Builder batch = SeriesBatch.newBuilder();
            int n = 1 + random.nextInt(64);
            for (int i = 0; i < n; i++) {
                Series s = randomSeries();
                encode(encoder, s, random.nextBoolean());
                if (random.nextInt(5) == 0) {
                    encoder.dropSeries(); // a series with no sample in range
                    continue;
                }
                encoder.endSeries();
                batch.addSeries(s);
            }
            if (encoder.isEmpty()) {
                continue;
            }
            assertThat(encoder.full()).isEqualTo(batch.getSeriesCount() == 64);
            SeriesResponse expected = SeriesResponse.newBuilder().setBatch(batch).build();
            byte[] got = drain(encoder.message());
            assertThat(got).isEqualTo(expected.toByteArray());
            assertThat(SeriesResponse.parseFrom(got)).isEqualTo(expected);
            encoder.sent();
        }
    }

    @Test
    void aBatchIsFullOnceItPassesTheByteCap() {
        SeriesResponseEncoder encoder = new SeriesResponseEncoder();
        encoder.reset(1_000_000);
        byte[] chunk = new byte[100_000];
        int n = 0;
        while (!encoder.full()) {
            encoder.beginSeries();
            encoder.label("__name__big".getBytes(StandardCharsets.UTF_8), 0, 8, 8, 3);
            encoder.chunk(1, 2, chunk, 0, chunk.length);
            encoder.endSeries();
            n++;
        }
        assertThat(n).isEqualTo(SeriesResponseEncoder.MAX_BATCH_BYTES / 100_000 + 1);
    }

    @Test
    void theStreamReadsTheSameBytesAsItDrains() throws Exception {
        SeriesResponseEncoder encoder = new SeriesResponseEncoder();
        encoder.reset(8);
        Series s = randomSeries();
        encode(encoder, s, false);
        encoder.endSeries();
        EncodedMessage message = encoder.message();
        byte[] drained = drain(message);
        try (InputStream in = EncodedMessage.MARSHALLER.stream(message)) {
            assertThat(in.available()).isEqualTo(drained.length);
            assertThat(in.readAllBytes()).isEqualTo(drained);
            assertThat(in.read()).isEqualTo(-1);
        }
        assertThat(message.drained()).isTrue();
        assertThat(SeriesResponse.parseFrom(drained).getBatch().getSeries(0)).isEqualTo(s);
    }

    @Test
    void varintSizes() {
        assertThat(SeriesResponseEncoder.varint32Size(0)).isEqualTo(1);
        assertThat(SeriesResponseEncoder.varint32Size(127)).isEqualTo(1);
        assertThat(SeriesResponseEncoder.varint32Size(128)).isEqualTo(2);
        assertThat(SeriesResponseEncoder.varint32Size(Integer.MAX_VALUE)).isEqualTo(5);
        assertThat(SeriesResponseEncoder.varint64Size(-1)).isEqualTo(10);
        assertThat(SeriesResponseEncoder.varint64Size(1L << 62)).isEqualTo(9);
    }

    private static byte[] drain(EncodedMessage message) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = EncodedMessage.MARSHALLER.stream(message)) {
            assertThat(((io.grpc.Drainable) in).drainTo(out)).isEqualTo(message.length());
        }
        assertThat(message.drained()).isTrue();
        return out.toByteArray();
    }
}
