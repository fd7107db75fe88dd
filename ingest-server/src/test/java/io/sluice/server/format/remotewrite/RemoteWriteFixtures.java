package io.sluice.server.format.remotewrite;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.BucketSpan;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Exemplar;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Histogram;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Label;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.MetricMetadata;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.TimeSeries;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV1.WriteRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Remote-write payloads built with the protobuf-java classes generated from the test schema. */
final class RemoteWriteFixtures {
    private static final String[] NAMES = {"__name__", "job", "instance", "cpu", "mode", "le", "ünïcode", "名前", "a"};

    private RemoteWriteFixtures() {
    }

    static byte[] snappy(byte[] uncompressed) {
        SnappyJavaCompressor compressor = new SnappyJavaCompressor();
        byte[] out = new byte[compressor.maxCompressedLength(uncompressed.length)];
        int n = compressor.compress(uncompressed, 0, uncompressed.length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    /** What the decoder must emit for a request: every series with samples, labels then samples in order. */
    static List<String> expectedEvents(WriteRequest request) {
        List<String> events = new ArrayList<>();
        for (TimeSeries series : request.getTimeseriesList()) {
            if (series.getSamplesCount() == 0) {
                continue;
            }
            events.add(RecordingSink.begin());
            for (Label label : series.getLabelsList()) {
                events.add(RecordingSink.label(label.getNameBytes().toByteArray(), label.getValueBytes().toByteArray()));
            }
            events.add(RecordingSink.endLabelsEvent());
            for (Sample sample : series.getSamplesList()) {
                events.add(RecordingSink.sample(sample.getTimestamp(), Double.doubleToRawLongBits(sample.getValue())));
            }
        }
        return events;
    }

    /** A random request: UTF-8 and empty label values, special floats, exemplars, histograms, metadata, unknown fields. */
    static WriteRequest randomRequest(Random random) {
        WriteRequest.Builder request = WriteRequest.newBuilder();
        int seriesCount = random.nextInt(30);
        for (int s = 0; s < seriesCount; s++) {
            request.addTimeseries(randomSeries(random));
        }
        for (int m = random.nextInt(3); m > 0; m--) {
            request.addMetadata(MetricMetadata.newBuilder()
                    .setType(MetricMetadata.MetricType.forNumber(random.nextInt(8)))
                    .setMetricFamilyName("family_" + random.nextInt(50))
                    .setHelp(SpecialValues.text(random))
                    .setUnit("seconds"));
        }
        if (random.nextInt(4) == 0) {
            request.setUnknownFields(randomUnknownFields(random, 2));
        }
        return request.build();
    }

    private static TimeSeries randomSeries(Random random) {
        TimeSeries.Builder series = TimeSeries.newBuilder();
        for (int l = random.nextInt(12); l > 0; l--) {
            series.addLabels(randomLabel(random));
        }
        int samples = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(8);
        for (int i = 0; i < samples; i++) {
            Sample.Builder sample = Sample.newBuilder()
                    .setValue(SpecialValues.value(random))
                    .setTimestamp(SpecialValues.timestampMs(random));
            if (random.nextInt(8) == 0) {
                sample.setUnknownFields(randomUnknownFields(random, 3));
            }
            series.addSamples(sample);
        }
        for (int e = random.nextInt(3) == 0 ? 1 + random.nextInt(2) : 0; e > 0; e--) {
            series.addExemplars(Exemplar.newBuilder()
                    .addLabels(randomLabel(random))
                    .setValue(SpecialValues.value(random))
                    .setTimestamp(SpecialValues.timestampMs(random)));
        }
        for (int h = random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0; h > 0; h--) {
            series.addHistograms(randomHistogram(random));
        }
        if (random.nextInt(5) == 0) {
            series.setUnknownFields(randomUnknownFields(random, 5));
        }
        return series.build();
    }

    static Label randomLabel(Random random) {
        Label.Builder label = Label.newBuilder()
                .setName(NAMES[random.nextInt(NAMES.length)])
                .setValue(SpecialValues.text(random));
        if (random.nextInt(10) == 0) {
            label.setUnknownFields(randomUnknownFields(random, 3));
        }
        return label.build();
    }

    static Histogram randomHistogram(Random random) {
        Histogram.Builder h = Histogram.newBuilder()
                .setCountInt(random.nextInt(1000))
                .setSum(random.nextDouble())
                .setSchema(random.nextInt(9) - 4)
                .setZeroThreshold(1e-128)
                .setZeroCountInt(random.nextInt(5))
                .setTimestamp(SpecialValues.timestampMs(random));
        for (int i = random.nextInt(3); i > 0; i--) {
            h.addPositiveSpans(BucketSpan.newBuilder().setOffset(random.nextInt(10) - 5).setLength(random.nextInt(4)));
            h.addPositiveDeltas(random.nextLong());
            h.addNegativeCounts(random.nextDouble());
        }
        return h.build();
    }

    /** Unknown fields of every wire type, numbered above any field the schema knows. */
    static UnknownFieldSet randomUnknownFields(Random random, int nestedGroups) {
        UnknownFieldSet.Builder set = UnknownFieldSet.newBuilder();
        set.addField(100 + random.nextInt(10), UnknownFieldSet.Field.newBuilder().addVarint(random.nextLong()).build());
        set.addField(200, UnknownFieldSet.Field.newBuilder().addFixed32(random.nextInt()).build());
        set.addField(300, UnknownFieldSet.Field.newBuilder().addFixed64(random.nextLong()).build());
        set.addField(400, UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(ByteString.copyFromUtf8(SpecialValues.text(random))).build());
        if (nestedGroups > 0 && random.nextBoolean()) {
            set.addField(500 + nestedGroups, UnknownFieldSet.Field.newBuilder()
                    .addGroup(randomUnknownFields(random, nestedGroups - 1)).build());
        }
        return set.build();
    }

    /** A TimeSeries whose fields come in the order of the parts (protobuf merges concatenated messages). */
    static ByteString concatenated(TimeSeries... parts) {
        ByteString bytes = ByteString.EMPTY;
        for (TimeSeries part : parts) {
            bytes = bytes.concat(part.toByteString());
        }
        return bytes;
    }

    /** A WriteRequest holding the given serialized TimeSeries, each as field 1. */
    static byte[] requestOf(ByteString... timeSeries) {
        UnknownFieldSet.Field.Builder field = UnknownFieldSet.Field.newBuilder();
        for (ByteString ts : timeSeries) {
            field.addLengthDelimited(ts);
        }
        return UnknownFieldSet.newBuilder().addField(1, field.build()).build().toByteArray();
    }
}
