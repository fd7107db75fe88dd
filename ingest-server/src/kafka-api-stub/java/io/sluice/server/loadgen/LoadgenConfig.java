package io.sluice.server.loadgen;

import io.sluice.server.format.PayloadFormat;
import java.util.Map;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public record LoadgenConfig(String bootstrapServers, String topic, PayloadFormat format, int series, long samples,
                            double samplesPerSecond, int seriesPerRecord, int samplesPerSeries, long seed,
                            long startTimeMs, long scrapeIntervalMs, Map<String, String> kafkaProperties) {
    public static LoadgenConfig of(String bootstrapServers, String topic, PayloadFormat format, int series, long samples) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, 0, 500, 10, 42, 0, 15_000, Map.of());
    }

    public LoadgenConfig withRate(double samplesPerSecond) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }

    public LoadgenConfig withTime(long startTimeMs, long scrapeIntervalMs) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }
}
