package io.sluice.server.format.remotewrite;

import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Exemplar;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Histogram;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Metadata;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Request;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.Sample;
import io.sluice.server.format.remotewrite.pb.RemoteWriteV2.TimeSeries;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Remote-write 2.0 requests built with the protobuf-java classes generated from the test schema. */
final class RemoteWriteV2Fixtures {
    private static final String[] NAMES = {"__name__", "job", "instance", "cpu", "mode", "le", "ünïcode", "名前", "a"};

    private RemoteWriteV2Fixtures() {
    }

    /** Builds a request's symbol table as series are added; symbol 0 is "" as the specification asks. */
    static final class Symbols {
        private final Map<String, Integer> refs = new LinkedHashMap<>();

        Symbols() {
            ref("");
        }

        int ref(String symbol) {
            return refs.computeIfAbsent(symbol, s -> refs.size());
        }

        List<String> list() {
            return new ArrayList<>(refs.keySet());
        }
    }

    /** What the decoder must emit for a request: every series with samples, labels then samples in order. */
    static List<String> expectedEvents(Request request) {
        List<String> events = new ArrayList<>();
        for (TimeSeries series : request.getTimeseriesList()) {
            if (series.getSamplesCount() == 0) {
                continue;
            }
            events.add(RecordingSink.begin());
            for (int i = 0; i < series.getLabelsRefsCount(); i += 2) {
                events.add(RecordingSink.label(
                        request.getSymbols(series.getLabelsRefs(i)).getBytes(StandardCharsets.UTF_8),
                        request.getSymbols(series.getLabelsRefs(i + 1)).getBytes(StandardCharsets.UTF_8)));
            }
            events.add(RecordingSink.endLabelsEvent());
            for (Sample sample : series.getSamplesList()) {
                events.add(RecordingSink.sample(sample.getTimestamp(), Double.doubleToRawLongBits(sample.getValue())));
            }
        }
        return events;
    }

    /** A random request: UTF-8 and empty symbols, special floats, histograms, exemplars, metadata, unknown fields. */
    static Request randomRequest(Random random) {
        Symbols symbols = new Symbols();
        List<TimeSeries> series = new ArrayList<>();
        for (int s = random.nextInt(30); s > 0; s--) {
            series.add(randomSeries(random, symbols));
        }
        Request.Builder request = Request.newBuilder().addAllSymbols(symbols.list()).addAllTimeseries(series);
        if (random.nextInt(4) == 0) {
            request.setUnknownFields(RemoteWriteFixtures.randomUnknownFields(random, 2));
        }
        return request.build();
    }

    private static TimeSeries randomSeries(Random random, Symbols symbols) {
        TimeSeries.Builder series = TimeSeries.newBuilder();
        int labels = random.nextInt(8) == 0 ? 60 : random.nextInt(12);
        for (int l = 0; l < labels; l++) {
            series.addLabelsRefs(symbols.ref(NAMES[random.nextInt(NAMES.length)] + (labels > 12 ? l : "")));
            series.addLabelsRefs(symbols.ref(SpecialValues.text(random)));
        }
        boolean histograms = random.nextInt(6) == 0;
        for (int i = histograms ? 0 : 1 + random.nextInt(8); i > 0; i--) {
            series.addSamples(Sample.newBuilder()
                    .setValue(SpecialValues.value(random))
                    .setTimestamp(SpecialValues.timestampMs(random)));
        }
        if (histograms) {
            series.addHistograms(Histogram.newBuilder().setCountInt(random.nextInt(100)).setSum(random.nextDouble())
                    .setSchema(-53).addCustomValues(0.5).addPositiveDeltas(3).setTimestamp(SpecialValues.timestampMs(random)));
        }
        if (random.nextInt(3) == 0) {
            series.addExemplars(Exemplar.newBuilder().addLabelsRefs(symbols.ref("trace_id"))
                    .addLabelsRefs(symbols.ref(Long.toHexString(random.nextLong()))).setValue(random.nextDouble())
                    .setTimestamp(SpecialValues.timestampMs(random)));
        }
        if (random.nextBoolean()) {
            series.setMetadata(Metadata.newBuilder().setType(Metadata.MetricType.forNumber(random.nextInt(8)))
                    .setHelpRef(symbols.ref("help " + random.nextInt(5))).setUnitRef(symbols.ref("")));
            series.setCreatedTimestamp(SpecialValues.timestampMs(random));
        }
        if (random.nextInt(5) == 0) {
            series.setUnknownFields(RemoteWriteFixtures.randomUnknownFields(random, 3));
        }
        return series.build();
    }
}
