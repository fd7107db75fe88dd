package io.sluice.tools.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.kafka.SharedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The load generator's records, read back from a real broker, decode to exactly the series and samples it says it produced. */
class LoadgenTest {
    @ParameterizedTest
    @EnumSource(PayloadFormat.class) // the load generator writes every format
    void producedRecordsDecodeToThePlannedSamples(PayloadFormat format) throws PayloadException {
        String topic = SharedKafka.unique("loadgen-" + format.configName());
        SharedKafka.broker().createTopic(topic, 3);
        // 450 series in blocks of 100 (a short last block), 3 scrapes a record, 2,000 samples (a short last record).
        LoadgenConfig config = LoadgenConfig.of(SharedKafka.broker().bootstrapServers(), topic, format, 450, 2_000)
                .withShape(100, 3).withTime(1_763_800_000_000L, 15_000).withSeed(7);
        LoadgenResult result = Loadgen.run(config);

        assertThat(result.samples()).isEqualTo(2_000);
        // json: one record per sample, as prometheus-kafka-adapter writes
        assertThat(result.records()).isEqualTo(format == PayloadFormat.JSON ? 2_000 : LoadPlan.records(config));
        assertThat(result.series()).isEqualTo(450);
        assertThat(result.interrupted()).isFalse();

        List<ConsumerRecord<byte[], byte[]>> records = consume(topic, result.records());
        PayloadDecoder decoder = format.newDecoder(DecoderLimits.DEFAULTS);
        CollectingSink sink = new CollectingSink();
        Map<String, Integer> partitionByKey = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            var contentType = r.headers().lastHeader(PayloadFormat.CONTENT_TYPE_HEADER);
            assertThat(contentType == null ? null : new String(contentType.value(), java.nio.charset.StandardCharsets.US_ASCII))
                    .as("remote-write 2.0 records say so").isEqualTo(format == PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2
                            ? "application/x-protobuf;proto=io.prometheus.write.v2.Request" : null);
            decoder.decode(r.value(), 0, r.value().length, r.timestamp(), sink);
            Integer before = partitionByKey.put(new String(r.key()), r.partition());
            assertThat(before == null || before == r.partition()).as("a block always goes to one partition").isTrue();
        }
        assertThat(sink.entries).containsExactlyInAnyOrderElementsOf(expected(config));
    }

    /** What the plan says was produced, computed from the model. */
    private static List<String> expected(LoadgenConfig config) {
        NodeExporterModel model = config.model();
        LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();
        List<String> out = new ArrayList<>();
        Set<Integer> series = new HashSet<>();
        LoadPlan.walk(config, new LoadPlan.Visitor() {
            private String labels;

            @Override
            public void beginRecord(int block, long firstScrape) {
            }

            @Override
            public void beginSeries(int s) {
                byte[] canonical = model.canonicalLabels(s, builder);
                labels = new LabelsView().wrap(canonical, 0, canonical.length).toString();
                series.add(s);
            }

            @Override
            public void sample(int s, long scrape) {
                out.add(labels + " " + model.timestampMs(s, scrape) + " " + Double.doubleToRawLongBits(model.value(s, scrape)));
            }

            @Override
            public void endSeries() {
            }

            @Override
            public boolean endRecord() {
                return true;
            }
        });
        assertThat(series).hasSize(450);
        return out;
    }

    @Test
    void counterSeriesNeverDecreaseAndValuesAreAFunctionOfTheSeed() {
        NodeExporterModel a = new NodeExporterModel(1000, 3, 0, 15_000);
        NodeExporterModel b = new NodeExporterModel(1000, 3, 0, 15_000);
        for (int s = 0; s < 1000; s++) {
            boolean counter = a.labelPairs(s).get(1).endsWith("_total");
            for (int scrape = 0; scrape < 50; scrape++) {
                assertThat(a.value(s, scrape)).isEqualTo(b.value(s, scrape));
                assertThat(a.timestampMs(s, scrape + 1)).isGreaterThan(a.timestampMs(s, scrape));
                if (counter) {
                    assertThat(a.value(s, scrape + 1)).as("series %d", s).isGreaterThan(a.value(s, scrape));
                }
            }
        }
        assertThat(a.labelPairs(0)).containsSequence("__name__", "node_cpu_seconds_total");
        assertThat(a.labelPairs(199)).contains("node_scrape_collector_success");
    }

    @Test
    void samplePerLineFormatsGetRecordsThatFitAHeadBatch() {
        for (PayloadFormat format : PayloadFormat.values()) {
            int perRecord = LoadgenConfig.of("localhost:9092", "t", format, 10_000, 100_000).seriesPerRecord();
            boolean perLine = format == PayloadFormat.INFLUX || format == PayloadFormat.OTLP || format == PayloadFormat.JSON;
            assertThat(perRecord).as("%s", format).isEqualTo(perLine ? 100 : 500);
        }
    }

    @Test
    void badConfigurationIsOneReadableLine() {
        assertThatThrownBy(() -> LoadgenConfig.of("localhost:9092", "t", PayloadFormat.SLUICE, 0, 10))
                .hasMessage("--series must be at least 1, was 0");
        assertThatThrownBy(() -> LoadgenConfig.of("localhost:9092", "t", PayloadFormat.SLUICE, 10, 10).withRate(-1))
                .hasMessageStartingWith("--rate must be");
    }

    private static List<ConsumerRecord<byte[], byte[]>> consume(String topic, long count) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, SharedKafka.unique("loadgen-reader"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        assertThat(out).hasSize((int) count);
        return out;
    }

    /** Canonical labels plus each sample, in the same text form as {@link #expected}. */
    private static final class CollectingSink implements MetricSink {
        private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();
        private final List<String> entries = new ArrayList<>();
        private String labels;

        @Override
        public void beginSeries() {
            builder.reset();
        }

        @Override
        public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
            builder.add(nameBuf, nameOff, nameLen, valueBuf, valueOff, valueLen);
        }

        @Override
        public void endLabels() {
            assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
            labels = new LabelsView().wrap(builder.bytes(), 0, builder.length()).toString();
        }

        @Override
        public void canonicalSeries(byte[] buf, int off, int len) {
            assertThat(builder.fromCanonical(buf, off, len)).isEqualTo(LabelsStatus.OK);
            labels = new LabelsView().wrap(buf, off, len).toString();
        }

        @Override
        public void sample(long timestampMs, double value) {
            entries.add(labels + " " + timestampMs + " " + Double.doubleToRawLongBits(value));
        }
    }
}
