package io.sluice.server.format.otlp;

import static io.sluice.server.format.otlp.OtlpBuilders.attr;
import static io.sluice.server.format.otlp.OtlpBuilders.bare;
import static io.sluice.server.format.otlp.OtlpBuilders.gauge;
import static io.sluice.server.format.otlp.OtlpBuilders.histogram;
import static io.sluice.server.format.otlp.OtlpBuilders.point;
import static io.sluice.server.format.otlp.OtlpBuilders.request;
import static io.sluice.server.format.otlp.OtlpBuilders.resource;
import static io.sluice.server.format.otlp.OtlpBuilders.scope;
import static io.sluice.server.format.otlp.pb.OtlpMetrics.AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.Corruption;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.SeriesTextSink;
import io.sluice.server.format.otlp.pb.OtlpMetrics.ExportMetricsServiceRequest;
import io.sluice.server.format.otlp.pb.OtlpMetrics.HistogramDataPoint;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random requests written by protobuf-java decode to the series the plain model in
 * {@link OtlpOracle} expects; malformed requests are rejected whole with a reason.
 */
class OtlpRandomTest {
    private static final long SEED = 0x07_1F_5EEDL;
    private static final long T = 1_763_800_000_000L;

    private final OtlpDecoder decoder = new OtlpDecoder(DecoderLimits.DEFAULTS);

    private List<String> decode(byte[] record) throws PayloadException {
        SeriesTextSink sink = new SeriesTextSink();
        decoder.decode(record, 0, record.length, 0, sink);
        return sink.lines();
    }

    private PayloadException reject(byte[] record) {
        try {
            decoder.decode(record, 0, record.length, 0, new SeriesTextSink());
        } catch (PayloadException e) {
            assertThat(e.position()).isBetween(0L, (long) record.length);
            return e;
        }
        return fail("decoded a malformed record");
    }

    @Test
    void seededRandomRequestsDecodeToTheSeriesTheModelExpects() throws PayloadException {
        Random random = new Random(SEED);
        long samples = 0;
        for (int i = 0; i < 500; i++) {
            ExportMetricsServiceRequest request = OtlpOracle.randomRequest(random);
            List<String> expected = OtlpOracle.expectedLines(request);
            assertThat(decode(request.toByteArray())).as("request %d, seed %x:%n%s", i, SEED, request).isEqualTo(expected);
            samples += expected.size();
        }
        assertThat(samples).as("the random requests carry samples").isGreaterThan(10_000);
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.DELTA_TEMPORALITY)).isPositive();
        assertThat(decoder.metricsSkippedTotal(OtlpSkip.EXPONENTIAL_HISTOGRAM)).isPositive();
    }

    @Test
    void fieldsInAnyOrderAndSplitPackedFieldsReadAsProtobufJavaMergesThem() throws Exception {
        HistogramDataPoint first = HistogramDataPoint.newBuilder().addExplicitBounds(1).addBucketCounts(1).build();
        HistogramDataPoint second = HistogramDataPoint.newBuilder().setTimeUnixNano(T * 1_000_000).setCount(5)
                .addExplicitBounds(2.5).addBucketCounts(2).addBucketCounts(3).addAttributes(attr("host", "v")).build();
        ByteString point = first.toByteString().concat(second.toByteString());
        // Histogram { data_points = point (two halves); aggregation_temporality after the points }
        ByteString histogramMessage = UnknownFieldSet.newBuilder()
                .addField(1, UnknownFieldSet.Field.newBuilder().addLengthDelimited(point).build())
                .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(2).build()).build().toByteString();
        // Metric { histogram before name }
        ByteString metric = UnknownFieldSet.newBuilder()
                .addField(9, UnknownFieldSet.Field.newBuilder().addLengthDelimited(histogramMessage).build())
                .addField(1, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("requests_total")).build())
                .build().toByteString();
        ExportMetricsServiceRequest request = bare(io.sluice.server.format.otlp.pb.OtlpMetrics.Metric.parseFrom(metric));
        assertThat(request.getResourceMetrics(0).getScopeMetrics(0).getMetrics(0).getHistogram().getDataPoints(0)
                .getBucketCountsList()).as("protobuf-java merges the halves").containsExactly(1L, 2L, 3L);
        assertThat(decode(request.toByteArray())).isEqualTo(OtlpOracle.expectedLines(request)).hasSize(4);
    }

    @Test
    void aRequestCutAtEveryByteIsRejectedOrIsAShorterValidRequest() throws PayloadException {
        ExportMetricsServiceRequest request = request(resource(attr("service.name", "s"), attr("host", "h")),
                scope("lib", "1"), gauge("g", "s", point(T, 1.5, attr("a", "b"))),
                histogram("h", "", AGGREGATION_TEMPORALITY_CUMULATIVE, HistogramDataPoint.newBuilder().setCount(3).setSum(2)
                        .addExplicitBounds(0.5).addBucketCounts(1).addBucketCounts(2).setTimeUnixNano(T * 1_000_000).build()));
        byte[] whole = request.toByteArray();
        int valid = 0;
        for (int cut = 0; cut < whole.length; cut++) {
            byte[] prefix = Arrays.copyOf(whole, cut);
            ExportMetricsServiceRequest shorter;
            try {
                shorter = ExportMetricsServiceRequest.parseFrom(prefix);
            } catch (InvalidProtocolBufferException invalid) {
                assertThat(reject(prefix).reason()).as("cut %d", cut).isIn(Reason.TRUNCATED, Reason.BAD_SCHEMA);
                continue;
            }
            assertThat(decode(prefix)).as("cut %d", cut).isEqualTo(OtlpOracle.expectedLines(shorter));
            valid++;
        }
        assertThat(valid).as("only a cut before the first byte leaves a valid request").isEqualTo(1);
    }

    @Test
    void histogramsWhoseCountsDoNotFitTheirBoundsRejectTheRecord() {
        HistogramDataPoint bad = HistogramDataPoint.newBuilder().addExplicitBounds(1).addExplicitBounds(2)
                .addBucketCounts(1).addBucketCounts(2).build();
        PayloadException e = reject(bare(gauge("ok", "", point(T, 1)),
                histogram("h", "", AGGREGATION_TEMPORALITY_CUMULATIVE, bad)).toByteArray());
        assertThat(e.reason()).isEqualTo(Reason.BAD_SCHEMA);
        assertThat(e.getMessage()).contains("2 bucket counts for 2 bounds");
    }

    private static byte[] join(byte[]... parts) {
        ByteWriter out = new ByteWriter(64);
        for (byte[] part : parts) {
            out.writeBytes(part, 0, part.length);
        }
        return Arrays.copyOf(out.buffer(), out.length());
    }

    /** A length-delimited field: its tag byte, the length, then the parts. */
    private static byte[] ld(int tag, byte[]... parts) {
        byte[] body = join(parts);
        ByteWriter out = new ByteWriter(body.length + 6);
        out.writeByte(tag);
        out.writeVarint(body.length);
        out.writeBytes(body, 0, body.length);
        return Arrays.copyOf(out.buffer(), out.length());
    }

    /** A request with one resource, scope and metric whose fields are {@code metricFields}. */
    private static byte[] inMetric(byte[]... metricFields) {
        return ld(0x0A, ld(0x12, ld(0x12, metricFields)));
    }

    @Test
    void knownFieldsWithAnotherWireTypeAreBadProtobuf() {
        byte[] name = {0x0A, 0x01, 'g'};
        byte[] varint = {0x08, 0x01};
        byte[][] cases = {
            varint,                                                          // resource_metrics
            ld(0x0A, new byte[] {0x10, 0x01}),                               // ResourceMetrics.scope_metrics
            ld(0x0A, ld(0x12, new byte[] {0x10, 0x01})),                     // ScopeMetrics.metrics
            inMetric(varint),                                                // Metric.name
            inMetric(name, ld(0x2A, varint)),                                // Gauge.data_points
            inMetric(name, ld(0x2A, ld(0x0A, new byte[] {0x18, 0x01}))),     // NumberDataPoint.time_unix_nano
            inMetric(name, ld(0x2A, ld(0x0A, new byte[] {0x20, 0x01}))),     // NumberDataPoint.as_double
            inMetric(name, ld(0x3A, ld(0x12))),                              // Sum.aggregation_temporality
            inMetric(name, ld(0x2A, ld(0x0A, ld(0x3A, varint)))),            // KeyValue.key
        };
        for (int i = 0; i < cases.length; i++) {
            PayloadException e = reject(cases[i]);
            assertThat(e.reason()).as("case %d: %s", i, e.getMessage()).isEqualTo(Reason.BAD_PROTOBUF);
        }
        byte[] boolAsLength = inMetric(name, ld(0x2A, ld(0x0A, ld(0x3A, ld(0x12, ld(0x12))))));
        assertThat(reject(boolAsLength).reason()).isEqualTo(Reason.BAD_PROTOBUF);
    }

    @Test
    void seededRandomCorruptionNeverEscapesAsAnotherException() {
        Random random = new Random(SEED + 1);
        int rejected = 0;
        for (int i = 0; i < 1000; i++) {
            byte[] bytes = OtlpOracle.randomRequest(random).toByteArray();
            Corruption.flip(random, bytes);
            rejected += Corruption.rejects(decoder, bytes, "case " + i + ", seed " + SEED) ? 1 : 0;
        }
        assertThat(rejected).as("seed %x", SEED).isGreaterThan(200);
    }

    @Test
    void aRecordBeyondTheLimitIsTooLarge() {
        OtlpDecoder tight = new OtlpDecoder(new DecoderLimits(8, 8));
        byte[] record = bare(gauge("g", "", point(T, 1))).toByteArray();
        try {
            tight.decode(record, 0, record.length, 0, new SeriesTextSink());
            fail("accepted a record beyond maxRecordBytes");
        } catch (PayloadException e) {
            assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE);
        }
    }
}
