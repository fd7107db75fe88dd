package io.sluice.server.format.remotewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.airlift.compress.v3.snappy.SnappyJavaDecompressor;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Label;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.TimeSeries;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.WriteRequest;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written encoder, checked by parsing its output with protobuf-java's generated classes. */
class RemoteWriteEncoderTest {
    private static final long SEED = 0xE4C0DEL;

    /** Writes a random request with the encoder and, in parallel, the protobuf-java message it should equal. */
    private static WriteRequest writeRandom(RemoteWriteEncoder encoder, Random random) {
        encoder.reset();
        WriteRequest.Builder expected = WriteRequest.newBuilder();
        for (int s = random.nextInt(40); s > 0; s--) {
            TimeSeries.Builder series = TimeSeries.newBuilder();
            encoder.beginSeries();
            for (int l = random.nextInt(12); l > 0; l--) {
                String name = SpecialValues.text(random);
                String value = SpecialValues.text(random);
                series.addLabels(Label.newBuilder().setName(name).setValue(value));
                encoder.label(name.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            }
            for (int i = 1 + random.nextInt(10); i > 0; i--) {
                long timestampMs = SpecialValues.timestampMs(random);
                double value = SpecialValues.value(random);
                series.addSamples(Sample.newBuilder().setTimestamp(timestampMs).setValue(value));
                encoder.sample(timestampMs, value);
            }
            encoder.endSeries();
            expected.addTimeseries(series);
        }
        encoder.finish();
        return expected.build();
    }

    @Test
    void protobufJavaParsesWhatTheEncoderWrites() throws Exception {
        Random random = new Random(SEED);
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(64);
        SnappyJavaDecompressor snappy = new SnappyJavaDecompressor();
        for (int i = 0; i < 200; i++) {
            WriteRequest expected = writeRandom(encoder, random);
            byte[] uncompressed = new byte[encoder.uncompressedLength()];
            int n = snappy.decompress(encoder.compressed(), 0, encoder.compressedLength(), uncompressed, 0, uncompressed.length);
            assertThat(n).isEqualTo(encoder.uncompressedLength());
            WriteRequest parsed = WriteRequest.parseFrom(uncompressed);
            assertThat(parsed).as("request %d, seed %x", i, SEED).isEqualTo(expected);
            for (int s = 0; s < parsed.getTimeseriesCount(); s++) {
                for (int j = 0; j < parsed.getTimeseries(s).getSamplesCount(); j++) {
                    assertThat(Double.doubleToRawLongBits(parsed.getTimeseries(s).getSamples(j).getValue()))
                            .as("bit-exact value, request %d", i)
                            .isEqualTo(Double.doubleToRawLongBits(expected.getTimeseries(s).getSamples(j).getValue()));
                }
            }
        }
    }

    @Test
    void theDecoderReadsWhatTheEncoderWrites() throws Exception {
        Random random = new Random(SEED + 1);
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(64);
        RemoteWriteDecoder decoder = new RemoteWriteDecoder(DecoderLimits.DEFAULTS);
        for (int i = 0; i < 100; i++) {
            WriteRequest expected = writeRandom(encoder, random);
            RecordingSink sink = new RecordingSink();
            decoder.decode(encoder.compressed(), 0, encoder.compressedLength(), 0, sink);
            assertThat(sink.events()).as("request %d, seed %x", i, SEED).isEqualTo(RemoteWriteFixtures.expectedEvents(expected));
        }
    }

    @Test
    void misuseIsAnIllegalStateNotACorruptPayload() {
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(64);
        assertThatThrownBy(() -> encoder.sample(1, 1)).isInstanceOf(IllegalStateException.class);
        encoder.beginSeries();
        assertThatThrownBy(encoder::beginSeries).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(encoder::endSeries).as("no samples").isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(encoder::finish).isInstanceOf(IllegalStateException.class);
    }
}
