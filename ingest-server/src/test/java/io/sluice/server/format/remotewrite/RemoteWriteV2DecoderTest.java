package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.snappy;
import static io.sluice.server.format.remotewrite.RemoteWriteV2Fixtures.expectedEvents;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.sluice.server.format.Corruption;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Request;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.TimeSeries;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The remote-write 2.0 decoder against protobuf-java's payloads; neither version is ever read as the other. */
class RemoteWriteV2DecoderTest {
    private static final long SEED = 0x2_5EEDL;

    private final RemoteWriteV2Decoder decoder = new RemoteWriteV2Decoder(DecoderLimits.DEFAULTS);

    private List<String> decode(byte[] uncompressed) throws PayloadException {
        byte[] record = snappy(uncompressed);
        RecordingSink sink = new RecordingSink();
        decoder.decode(record, 0, record.length, 0, sink);
        return sink.events();
    }

    private PayloadException reject(byte[] record) {
        try {
            decoder.decode(record, 0, record.length, 0, new RecordingSink());
        } catch (PayloadException e) {
            return e;
        }
        return fail("decoded a malformed record");
    }

    /** Serialized parts in this order: protobuf reads concatenated messages as one. */
    private static ByteString concat(ByteString... parts) {
        ByteString all = ByteString.EMPTY;
        for (ByteString part : parts) {
            all = all.concat(part);
        }
        return all;
    }

    private static ByteString field(int number, ByteString value) {
        return UnknownFieldSet.newBuilder().addField(number, UnknownFieldSet.Field.newBuilder().addLengthDelimited(value).build())
                .build().toByteString();
    }

    private static ByteString varints(int number, long... values) {
        UnknownFieldSet.Field.Builder f = UnknownFieldSet.Field.newBuilder();
        for (long v : values) {
            f.addVarint(v);
        }
        return UnknownFieldSet.newBuilder().addField(number, f.build()).build().toByteString();
    }

    private static ByteString symbols(String... symbols) {
        return Request.newBuilder().addAllSymbols(List.of(symbols)).build().toByteString();
    }

    private static final ByteString SAMPLE = Sample.newBuilder().setValue(2.5).setTimestamp(1000).build().toByteString();

    @Test
    void seededRandomRequestsDecodeAsProtobufJavaWroteThem() throws PayloadException {
        Random random = new Random(SEED);
        long samples = 0;
        for (int i = 0; i < 300; i++) {
            Request request = RemoteWriteV2Fixtures.randomRequest(random);
            List<String> expected = expectedEvents(request);
            assertThat(decode(request.toByteArray())).as("request %d, seed %x", i, SEED).isEqualTo(expected);
            samples += expected.stream().filter(e -> e.startsWith("sample")).count();
        }
        assertThat(samples).as("the random requests carry samples").isGreaterThan(5_000);
        assertThat(decoder.histogramsSkippedTotal()).isPositive();
        assertThat(decoder.exemplarsSkippedTotal()).isPositive();
        assertThat(decoder.metadataSkippedTotal()).isPositive();
        assertThat(decoder.seriesWithoutSamplesTotal()).isPositive();
    }

    @Test
    void symbolsAfterTheSeriesAndUnpackedOrSplitLabelReferences() throws Exception {
        // TimeSeries { labels_refs: [1, 2] unpacked; samples; labels_refs packed [3] ; labels_refs packed [4] }
        ByteString series = concat(varints(1, 1, 2), field(2, SAMPLE), field(1, ByteString.copyFrom(new byte[] {3})),
                field(1, ByteString.copyFrom(new byte[] {4})));
        byte[] request = concat(field(5, series), symbols("", "__name__", "up", "job", "node")).toByteArray();
        List<String> events = decode(request);
        assertThat(events).containsExactly(
                RecordingSink.begin(),
                RecordingSink.label("__name__".getBytes(), "up".getBytes()),
                RecordingSink.label("job".getBytes(), "node".getBytes()),
                RecordingSink.endLabelsEvent(),
                RecordingSink.sample(1000, Double.doubleToRawLongBits(2.5)));
        Request parsed = Request.parseFrom(request);
        assertThat(parsed.getTimeseries(0).getLabelsRefsList()).as("protobuf-java agrees").containsExactly(1, 2, 3, 4);
        assertThat(events).isEqualTo(expectedEvents(parsed));
    }

    @Test
    void badReferencesRejectTheRecordAlsoInASeriesWithoutSamples() {
        ByteString names = symbols("", "__name__", "up");
        byte[][] cases = {
            concat(names, field(5, concat(varints(1, 1, 3), field(2, SAMPLE)))).toByteArray(),
            concat(names, field(5, concat(varints(1, 1, 2, 1), field(2, SAMPLE)))).toByteArray(),
            concat(names, field(5, varints(1, 1, 0xFFFF_FFFFL))).toByteArray(),
            concat(names, field(5, varints(1, 1))).toByteArray(),
            concat(field(5, concat(varints(1, 0, 0), field(2, SAMPLE)))).toByteArray(),
        };
        for (int i = 0; i < cases.length; i++) {
            PayloadException e = reject(snappy(cases[i]));
            assertThat(e.reason()).as("case %d: %s", i, e.getMessage()).isEqualTo(Reason.BAD_SCHEMA);
        }
    }

    @Test
    void aRemoteWrite1RequestIsAnUnsupportedVersionForTheV2DecoderAndViceVersa() {
        RemoteWriteV1.WriteRequest v1 = RemoteWriteV1.WriteRequest.newBuilder()
                .addTimeseries(RemoteWriteV1.TimeSeries.newBuilder()
                        .addLabels(RemoteWriteV1.Label.newBuilder().setName("__name__").setValue("up"))
                        .addSamples(RemoteWriteV1.Sample.newBuilder().setValue(1).setTimestamp(1)))
                .addMetadata(RemoteWriteV1.MetricMetadata.newBuilder().setMetricFamilyName("up"))
                .build();
        PayloadException e = reject(snappy(v1.toByteArray()));
        assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);
        assertThat(e.getMessage()).contains("remote-write 1.0").contains("prometheus-remote-write");

        Request v2 = RemoteWriteV2Fixtures.randomRequest(new Random(SEED));
        byte[] record = snappy(v2.toByteArray());
        RemoteWriteDecoder v1Decoder = new RemoteWriteDecoder(DecoderLimits.DEFAULTS);
        try {
            v1Decoder.decode(record, 0, record.length, 0, new RecordingSink());
            fail("the 1.0 decoder read a 2.0 request");
        } catch (PayloadException v2AsV1) {
            assertThat(v2AsV1.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);
        }
    }

    @Test
    void aRequestCutAtEveryByteIsRejectedOrIsAShorterValidRequest() throws PayloadException {
        Request request = Request.newBuilder().addAllSymbols(List.of("", "__name__", "up", "job", "node"))
                .addTimeseries(TimeSeries.newBuilder().addAllLabelsRefs(List.of(1, 2, 3, 4))
                        .addSamples(Sample.newBuilder().setValue(Double.NaN).setTimestamp(-5))
                        .addSamples(Sample.newBuilder().setValue(-0.0).setTimestamp(1_763_800_000_000L)))
                .build();
        byte[] whole = request.toByteArray();
        int validCuts = 0;
        for (int cut = 0; cut < whole.length; cut++) {
            byte[] prefix = Arrays.copyOf(whole, cut);
            try {
                Request shorter = Request.parseFrom(prefix);
                assertThat(decode(prefix)).as("cut %d", cut).isEqualTo(expectedEvents(shorter));
                validCuts++;
            } catch (InvalidProtocolBufferException invalid) {
                PayloadException e = reject(snappy(prefix));
                assertThat(e.reason()).as("cut %d: %s", cut, e.getMessage()).isIn(Reason.TRUNCATED, Reason.BAD_SCHEMA);
            }
        }
        assertThat(validCuts).as("cuts between symbols").isBetween(1, 6);
        byte[] record = snappy(whole);
        for (int cut = 0; cut < record.length; cut++) {
            PayloadException e = reject(Arrays.copyOf(record, cut));
            assertThat(e.reason()).as("record cut %d", cut).isIn(Reason.TRUNCATED, Reason.BAD_COMPRESSION);
        }
    }

    @Test
    void seededRandomCorruptionNeverEscapesAsAnotherException() {
        Random random = new Random(SEED + 1);
        int rejected = 0;
        for (int i = 0; i < 1000; i++) {
            byte[] bytes = RemoteWriteV2Fixtures.randomRequest(random).toByteArray();
            if (bytes.length > 0) {
                Corruption.flip(random, bytes);
                rejected += Corruption.rejects(decoder, snappy(bytes), "case " + i + ", seed " + SEED) ? 1 : 0;
            }
        }
        assertThat(rejected).as("many corruptions are caught (flipped text and values cannot be), seed %x", SEED).isGreaterThan(200);
    }

    @Test
    void anEmptyRequestEmitsNothing() throws PayloadException {
        assertThat(decode(new byte[0])).isEmpty();
        assertThat(decode(symbols("", "unused").toByteArray())).isEmpty();
    }
}
