package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.concatenated;
import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.expectedEvents;
import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.requestOf;
import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Exemplar;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Label;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.MetricMetadata;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.TimeSeries;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.WriteRequest;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written decoder against payloads that protobuf-java's generated classes write. */
class RemoteWriteDecoderTest {
    private static final long SEED = 0x5EED_4E11L;

    private final RemoteWriteDecoder decoder = new RemoteWriteDecoder(DecoderLimits.DEFAULTS);

    private List<String> decode(byte[] uncompressed) throws PayloadException {
        byte[] record = snappy(uncompressed);
        RecordingSink sink = new RecordingSink();
        decoder.decode(record, 0, record.length, 0, sink);
        return sink.events();
    }

    @Test
    void seededRandomRequestsDecodeAsProtobufJavaWroteThem() throws PayloadException {
        Random random = new Random(SEED);
        long samples = 0;
        for (int i = 0; i < 300; i++) {
            WriteRequest request = RemoteWriteFixtures.randomRequest(random);
            List<String> expected = expectedEvents(request);
            assertThat(decode(request.toByteArray())).as("request %d, seed %x", i, SEED).isEqualTo(expected);
            samples += expected.stream().filter(e -> e.startsWith("sample")).count();
        }
        assertThat(samples).as("the random requests carry samples").isGreaterThan(10_000);
    }

    @Test
    void aRecordAtAnOffsetInsideALargerArrayDecodes() throws PayloadException {
        WriteRequest request = RemoteWriteFixtures.randomRequest(new Random(SEED + 1));
        byte[] record = snappy(request.toByteArray());
        byte[] padded = new byte[record.length + 17];
        System.arraycopy(record, 0, padded, 9, record.length);
        RecordingSink sink = new RecordingSink();
        decoder.decode(padded, 9, record.length, 0, sink);
        assertThat(sink.events()).isEqualTo(expectedEvents(request));
    }

    @Test
    void labelsAfterSamplesAndInterleavedFieldsAreHandled() throws Exception {
        Label job = Label.newBuilder().setName("job").setValue("node").build();
        Label name = Label.newBuilder().setName("__name__").setValue("up").build();
        Sample first = Sample.newBuilder().setValue(1).setTimestamp(1000).build();
        Sample second = Sample.newBuilder().setValue(2).setTimestamp(2000).build();
        ByteString series = concatenated(
                TimeSeries.newBuilder().addSamples(first).build(),
                TimeSeries.newBuilder().addLabels(job).build(),
                TimeSeries.newBuilder().setUnknownFields(RemoteWriteFixtures.randomUnknownFields(new Random(SEED), 2)).build(),
                TimeSeries.newBuilder().addSamples(second).build(),
                TimeSeries.newBuilder().addLabels(name).build());
        WriteRequest merged = WriteRequest.newBuilder().addTimeseries(TimeSeries.parseFrom(series)).build();

        List<String> events = decode(requestOf(series));

        assertThat(events).isEqualTo(expectedEvents(merged));
        assertThat(events).containsExactly(
                RecordingSink.begin(),
                RecordingSink.label("job".getBytes(), "node".getBytes()),
                RecordingSink.label("__name__".getBytes(), "up".getBytes()),
                RecordingSink.endLabelsEvent(),
                RecordingSink.sample(1000, Double.doubleToRawLongBits(1)),
                RecordingSink.sample(2000, Double.doubleToRawLongBits(2)));
    }

    @Test
    void absentFieldsTakeTheirDefaultsAndARepeatedScalarKeepsItsLastValue() throws Exception {
        // Label { value = "v" } without a name; Sample {} with neither field; Label { name = "a"; name = "b" }.
        Label valueOnly = Label.newBuilder().setValue("v").build();
        ByteString twoNames = Label.newBuilder().setName("a").build().toByteString()
                .concat(Label.newBuilder().setName("b").build().toByteString());
        ByteString series = UnknownFieldSet.newBuilder()
                .addField(1, UnknownFieldSet.Field.newBuilder().addLengthDelimited(valueOnly.toByteString())
                        .addLengthDelimited(twoNames).build())
                .addField(2, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.EMPTY).build())
                .build().toByteString();

        assertThat(decode(requestOf(series))).containsExactly(
                RecordingSink.begin(),
                RecordingSink.label(new byte[0], "v".getBytes()),
                RecordingSink.label("b".getBytes(), new byte[0]),
                RecordingSink.endLabelsEvent(),
                RecordingSink.sample(0, 0L));
        assertThat(Label.parseFrom(twoNames).getName()).as("protobuf-java agrees: last one wins").isEqualTo("b");
    }

    @Test
    void histogramsExemplarsAndMetadataAreSkippedAndCountedOnlyForDecodedRecords() throws PayloadException {
        Random random = new Random(SEED);
        WriteRequest request = WriteRequest.newBuilder()
                .addTimeseries(TimeSeries.newBuilder()
                        .addLabels(Label.newBuilder().setName("__name__").setValue("latency_seconds"))
                        .addHistograms(RemoteWriteFixtures.randomHistogram(random))
                        .addHistograms(RemoteWriteFixtures.randomHistogram(random)))
                .addTimeseries(TimeSeries.newBuilder()
                        .addLabels(Label.newBuilder().setName("__name__").setValue("up"))
                        .addSamples(Sample.newBuilder().setValue(1).setTimestamp(5))
                        .addExemplars(Exemplar.newBuilder()
                                .addLabels(RemoteWriteFixtures.randomLabel(random))))
                .addMetadata(MetricMetadata.newBuilder()
                        .setMetricFamilyName("up"))
                .build();

        assertThat(decode(request.toByteArray())).as("the histogram-only series emits nothing")
                .isEqualTo(expectedEvents(request)).hasSize(4);
        assertThat(decoder.histogramsSkippedTotal()).isEqualTo(2);
        assertThat(decoder.seriesWithoutSamplesTotal()).isEqualTo(1);
        assertThat(decoder.exemplarsSkippedTotal()).isEqualTo(1);
        assertThat(decoder.metadataSkippedTotal()).isEqualTo(1);

        byte[] broken = request.toByteArray();
        broken = Arrays.copyOf(broken, broken.length - 1);
        byte[] record = snappy(broken);
        assertThatThrownBy(() -> decoder.decode(record, 0, record.length, 0, new RecordingSink()))
                .isInstanceOfSatisfying(PayloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(PayloadException.Reason.TRUNCATED));
        assertThat(decoder.histogramsSkippedTotal()).as("a rejected record counts nothing").isEqualTo(2);
    }

    @Test
    void anEmptyRequestEmitsNothing() throws PayloadException {
        assertThat(decode(new byte[0])).isEmpty();
    }

    @Test
    void theDecompressionBufferGrowsToTheLargestRecordAndNoFurther() throws PayloadException {
        Random random = new Random(SEED);
        WriteRequest.Builder big = WriteRequest.newBuilder();
        while (big.build().getSerializedSize() < 3 * RemoteWriteDecoder.INITIAL_BUFFER_BYTES) {
            big.addTimeseries(TimeSeries.newBuilder()
                    .addLabels(Label.newBuilder().setName("__name__").setValue("x".repeat(500)))
                    .addSamples(Sample.newBuilder().setValue(SpecialValues.value(random)).setTimestamp(1)));
        }
        WriteRequest request = big.build();
        assertThat(decoder.bufferBytes()).isEqualTo(RemoteWriteDecoder.INITIAL_BUFFER_BYTES);
        assertThat(decode(request.toByteArray())).isEqualTo(expectedEvents(request));
        assertThat(decoder.bufferBytes()).isBetween(request.getSerializedSize(), 2 * request.getSerializedSize());
        int grown = decoder.bufferBytes();
        decode(WriteRequest.getDefaultInstance().toByteArray());
        assertThat(decoder.bufferBytes()).as("kept for reuse").isEqualTo(grown);
    }
}
