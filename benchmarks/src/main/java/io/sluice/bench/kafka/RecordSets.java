package io.sluice.bench.kafka;

import io.sluice.tools.loadgen.LoadPlan;
import io.sluice.tools.loadgen.LoadgenConfig;
import io.sluice.tools.loadgen.NodeExporterModel;
import io.sluice.tools.loadgen.PayloadWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The load generator's records, encoded in memory instead of produced: the broker-less benchmark's input. */
final class RecordSets {
    private RecordSets() {
    }

    /** Every record value {@code config} would produce, in production order. */
    static List<byte[]> encode(LoadgenConfig config) {
        NodeExporterModel model = config.model();
        PayloadWriter writer = PayloadWriter.of(config.format(), model, config.series());
        List<byte[]> records = new ArrayList<>();
        LoadPlan.walk(config, new LoadPlan.Visitor() {
            @Override
            public void beginRecord(int block, long firstScrape) {
                writer.begin(model.timestampMs(block * config.seriesPerRecord(), firstScrape));
            }

            @Override
            public void beginSeries(int series) {
                writer.beginSeries(series);
            }

            @Override
            public void sample(int series, long scrape) {
                writer.sample(model.timestampMs(series, scrape), model.value(series, scrape));
            }

            @Override
            public void endSeries() {
                writer.endSeries();
            }

            @Override
            public boolean endRecord() {
                writer.finish();
                for (int i = 0; i < writer.values(); i++) { // json: one value per sample
                    int from = writer.valueOffset(i);
                    records.add(Arrays.copyOfRange(writer.bytes(), from, from + writer.valueLength(i)));
                }
                return true;
            }
        });
        return records;
    }
}
