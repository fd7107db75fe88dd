package io.sluice.server.format.remotewrite;

import static io.sluice.server.format.remotewrite.RemoteWriteFixtures.snappy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.ProtoWire;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Label;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.TimeSeries;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.WriteRequest;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Malformed remote-write records: always a PayloadException with a reason and a position, nothing else. */
class RemoteWriteMalformedTest {
    private static final long SEED = 0xBAD_5EEDL;

    private final RemoteWriteDecoder decoder = new RemoteWriteDecoder(DecoderLimits.DEFAULTS);

    /** Two series, so that a cut between them is a valid (shorter) request. */
    private static final WriteRequest SMALL = WriteRequest.newBuilder()
            .addTimeseries(TimeSeries.newBuilder()
                    .addLabels(Label.newBuilder().setName("__name__").setValue("up"))
                    .addLabels(Label.newBuilder().setName("job").setValue("node"))
                    .addSamples(Sample.newBuilder().setValue(1).setTimestamp(1_763_800_000_000L))
                    .addSamples(Sample.newBuilder().setValue(Double.NaN).setTimestamp(-5)))
            .addTimeseries(TimeSeries.newBuilder()
                    .addLabels(Label.newBuilder().setName("__name__").setValue("down"))
                    .addSamples(Sample.newBuilder().setValue(-0.0).setTimestamp(7)))
            .build();

    private PayloadException rejectUncompressed(byte[] uncompressed) {
        return reject(snappy(uncompressed));
    }

    private PayloadException reject(byte[] record) {
        try {
            decoder.decode(record, 0, record.length, 0, new RecordingSink());
        } catch (PayloadException e) {
            assertThat(e.position()).as("position of %s", e.getMessage()).isBetween(0L, (long) Math.max(record.length,
                    decoder.bufferBytes()));
            return e;
        }
        return fail("decoded a malformed record: " + Arrays.toString(record));
    }

    @Test
    void aRequestCutAtEveryBytePositionIsTruncatedUnlessTheCutFallsBetweenSeries() throws PayloadException {
        byte[] whole = SMALL.toByteArray();
        int firstSeriesEnd = whole.length - SMALL.getTimeseries(1).getSerializedSize() - 2;
        for (int cut = 0; cut < whole.length; cut++) {
            byte[] prefix = Arrays.copyOf(whole, cut);
            if (cut == 0 || cut == firstSeriesEnd) {
                RecordingSink sink = new RecordingSink();
                byte[] record = snappy(prefix);
                decoder.decode(record, 0, record.length, 0, sink);
                assertThat(sink.events()).as("cut %d", cut).hasSize(cut == 0 ? 0 : 6);
            } else {
                PayloadException e = rejectUncompressed(prefix);
                assertThat(e.reason()).as("cut %d: %s", cut, e.getMessage()).isEqualTo(Reason.TRUNCATED);
            }
        }
    }

    @Test
    void aRecordCutAtEveryBytePositionIsRejected() {
        byte[] record = snappy(SMALL.toByteArray());
        for (int cut = 0; cut < record.length; cut++) {
            PayloadException e = reject(Arrays.copyOf(record, cut));
            assertThat(e.reason()).as("cut %d: %s", cut, e.getMessage()).isIn(Reason.TRUNCATED, Reason.BAD_COMPRESSION);
        }
    }

    @Test
    void seededRandomCorruptionNeverEscapesAsAnotherException() {
        Random random = new Random(SEED);
        int rejected = 0;
        for (int i = 0; i < 1200; i++) {
            WriteRequest request = RemoteWriteFixtures.randomRequest(random);
            boolean corruptCompressed = random.nextBoolean();
            byte[] bytes = corruptCompressed ? snappy(request.toByteArray()) : request.toByteArray();
            if (bytes.length == 0) {
                continue;
            }
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
            }
            byte[] record = corruptCompressed ? bytes : snappy(bytes);
            try {
                decoder.decode(record, 0, record.length, 0, new RecordingSink());
            } catch (PayloadException e) {
                rejected++;
            } catch (RuntimeException e) {
                throw new AssertionError("case " + i + ", seed " + SEED + ": " + e, e);
            }
        }
        assertThat(rejected).as("most corruptions are caught, seed %x", SEED).isGreaterThan(400);
    }

    @Test
    void garbageAfterAValidPreambleIsBadCompression() {
        byte[] record = {10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F};
        assertThat(reject(record).reason()).isEqualTo(Reason.BAD_COMPRESSION);
    }

    @Test
    void aPreambleThatDeclaresMoreThanTheBlockHoldsIsBadCompression() {
        byte[] record = snappy(SMALL.toByteArray());
        record[0] += 1;
        assertThat(reject(record).reason()).isIn(Reason.BAD_COMPRESSION);
    }

    @Test
    void hugeDeclaredSizesAreRejectedBeforeAllocating() {
        byte[] declares4GiB = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 0};
        PayloadException e = reject(declares4GiB);
        assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE);
        assertThat(e.position()).isZero();
        byte[] declaresMoreThan32Bits = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01};
        assertThat(reject(declaresMoreThan32Bits).reason()).isEqualTo(Reason.BAD_COMPRESSION);
        assertThat(decoder.bufferBytes()).isEqualTo(RemoteWriteDecoder.INITIAL_BUFFER_BYTES);
    }

    @Test
    void limitsApplyToTheRecordAndToTheDeclaredUncompressedSize() throws PayloadException {
        byte[] uncompressed = SMALL.toByteArray();
        byte[] record = snappy(uncompressed);
        RemoteWriteDecoder tight = new RemoteWriteDecoder(new DecoderLimits(record.length - 1, 1 << 20));
        assertThatThrownBy(() -> tight.decode(record, 0, record.length, 0, new RecordingSink()))
                .isInstanceOfSatisfying(PayloadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE));
        RemoteWriteDecoder small = new RemoteWriteDecoder(new DecoderLimits(1 << 20, uncompressed.length - 1));
        assertThatThrownBy(() -> small.decode(record, 0, record.length, 0, new RecordingSink()))
                .isInstanceOfSatisfying(PayloadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE));
        RemoteWriteDecoder exact = new RemoteWriteDecoder(new DecoderLimits(record.length, uncompressed.length));
        RecordingSink sink = new RecordingSink();
        exact.decode(record, 0, record.length, 0, sink);
        assertThat(sink.events()).isEqualTo(RemoteWriteFixtures.expectedEvents(SMALL));
    }

    @Test
    void badVarints() {
        byte[] elevenBytes = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        PayloadException tooLong = rejectUncompressed(elevenBytes);
        assertThat(tooLong.reason()).isEqualTo(Reason.BAD_VARINT);
        assertThat(tooLong.position()).isZero();
        byte[] overflows = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
            (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x02};
        assertThat(rejectUncompressed(overflows).reason()).isEqualTo(Reason.BAD_VARINT);
        byte[] timestampTooLong = series(sampleField(join(new byte[] {0x10}, elevenBytes)));
        assertThat(rejectUncompressed(timestampTooLong).reason()).isEqualTo(Reason.BAD_VARINT);
    }

    @Test
    void knownFieldsWithAnotherWireTypeAreBadProtobuf() {
        byte[][] cases = {
            {0x08, 0x01},                                          // WriteRequest.timeseries as VARINT
            {0x1D, 0, 0, 0, 0},                                     // WriteRequest.metadata as I32
            series(new byte[] {0x08, 0x01}),                        // TimeSeries.labels as VARINT
            series(new byte[] {0x11, 0, 0, 0, 0, 0, 0, 0, 0}),      // TimeSeries.samples as I64
            series(new byte[] {0x18, 0x01}),                        // TimeSeries.exemplars as VARINT
            series(new byte[] {0x25, 0, 0, 0, 0}),                  // TimeSeries.histograms as I32
            series(labelField(new byte[] {0x08, 0x01})),            // Label.name as VARINT
            series(labelField(new byte[] {0x15, 0, 0, 0, 0})),      // Label.value as I32
            series(sampleField(new byte[] {0x08, 0x01})),           // Sample.value as VARINT
            series(sampleField(new byte[] {0x11, 0, 0, 0, 0, 0, 0, 0, 0})), // Sample.timestamp as I64
        };
        for (int i = 0; i < cases.length; i++) {
            PayloadException e = rejectUncompressed(cases[i]);
            assertThat(e.reason()).as("case %d: %s", i, e.getMessage()).isEqualTo(Reason.BAD_PROTOBUF);
            assertThat(e.getMessage()).contains("wire type");
        }
    }

    @Test
    void invalidTagsWireTypesAndGroups() {
        assertThat(rejectUncompressed(new byte[] {0x00}).getMessage()).contains("invalid tag 0");
        assertThat(rejectUncompressed(new byte[] {0x36}).getMessage()).contains("invalid wire type 6");
        assertThat(rejectUncompressed(new byte[] {0x37}).getMessage()).contains("invalid wire type 7");
        assertThat(rejectUncompressed(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10})
                .getMessage()).contains("invalid tag");
        assertThat(rejectUncompressed(new byte[] {0x34}).getMessage()).contains("without its start-group");
        assertThat(rejectUncompressed(new byte[] {0x33, 0x3C}).getMessage()).contains("end-group 7 closes group 6");
        assertThat(rejectUncompressed(new byte[] {0x33, 0x08, 0x01}).reason()).isEqualTo(Reason.TRUNCATED);
        byte[] deep = new byte[ProtoWire.MAX_GROUP_DEPTH + 1];
        Arrays.fill(deep, (byte) 0x33);
        assertThat(rejectUncompressed(deep).getMessage()).contains("nested deeper than");
    }

    @Test
    void aRemoteWrite2RequestIsAnUnsupportedVersionNotAnEmptyRequest() {
        // io.prometheus.write.v2.Request { repeated string symbols = 4; repeated TimeSeries timeseries = 5; }
        byte[] v2 = join(lengthDelimited(0x22, "__name__".getBytes()), lengthDelimited(0x2A, new byte[] {0x0A, 0x02, 0x00, 0x01}));
        PayloadException e = rejectUncompressed(v2);
        assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);
        assertThat(e.getMessage()).contains("remote-write 2.0");
    }

    @Test
    void nestedGroupsWithinTheDepthLimitAreSkipped() throws PayloadException {
        int depth = ProtoWire.MAX_GROUP_DEPTH;
        byte[] groups = new byte[2 * depth];
        Arrays.fill(groups, 0, depth, (byte) 0x33);
        Arrays.fill(groups, depth, 2 * depth, (byte) 0x34);
        byte[] record = snappy(join(groups, SMALL.toByteArray()));
        RecordingSink sink = new RecordingSink();
        decoder.decode(record, 0, record.length, 0, sink);
        assertThat(sink.events()).isEqualTo(RemoteWriteFixtures.expectedEvents(SMALL));
    }

    @Test
    void lengthsThatOverrunTheirMessageAreTruncatedWithThePosition() {
        // A Label whose value claims 9 bytes where its Label holds 2: inside the TimeSeries and the request.
        byte[] label = {0x12, 0x09, 'a', 'b'};
        byte[] request = series(labelField(label));
        PayloadException e = rejectUncompressed(request);
        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.position()).as(e.getMessage()).isEqualTo(request.length - label.length + 1);
        assertThat(e.getMessage()).contains("uncompressed WriteRequest").contains("Label.value");

        byte[] hugeLength = {0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F};
        assertThat(rejectUncompressed(hugeLength).reason()).isEqualTo(Reason.TRUNCATED);
        byte[] negativeLength = {0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01};
        assertThat(rejectUncompressed(negativeLength).reason()).isEqualTo(Reason.TRUNCATED);
        byte[] sampleValueCut = series(sampleField(new byte[] {0x09, 1, 2, 3}));
        assertThat(rejectUncompressed(sampleValueCut).reason()).isEqualTo(Reason.TRUNCATED);
    }

    private static byte[] series(byte[] timeSeriesBody) {
        return lengthDelimited(0x0A, timeSeriesBody);
    }

    private static byte[] labelField(byte[] labelBody) {
        return lengthDelimited(0x0A, labelBody);
    }

    private static byte[] sampleField(byte[] sampleBody) {
        return lengthDelimited(0x12, sampleBody);
    }

    private static byte[] lengthDelimited(int tag, byte[] body) {
        ByteWriter out = new ByteWriter(body.length + 6);
        out.writeByte(tag);
        out.writeVarint(body.length);
        out.writeBytes(body, 0, body.length);
        return Arrays.copyOf(out.buffer(), out.length());
    }

    private static byte[] join(byte[] a, byte[] b) {
        byte[] joined = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }
}
