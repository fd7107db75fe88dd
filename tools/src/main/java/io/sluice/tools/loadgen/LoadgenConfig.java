package io.sluice.tools.loadgen;

import io.sluice.server.format.PayloadFormat;
import java.util.Map;

/**
 * What {@link Loadgen} produces: {@code samples} samples of {@code series} node-exporter-like series
 * ({@link NodeExporterModel}) in {@code format}, to {@code topic}.
 *
 * <p>Shape: a record carries {@code seriesPerRecord} consecutive series (a "block") with
 * {@code samplesPerSeries} consecutive scrapes each; records go out window by window (scrapes
 * {@code [w * samplesPerSeries, (w + 1) * samplesPerSeries)}), block by block, keyed by block so a
 * series always lands in the same partition, in time order. The last record may be short.
 *
 * @param samplesPerSecond  the pace; 0 = as fast as the broker takes them
 * @param seed              values are a function of the seed (and series and scrape) alone
 * @param startTimeMs       the timestamp of scrape 0
 * @param kafkaProperties   producer properties passed through (security, compression, batching)
 */
public record LoadgenConfig(String bootstrapServers, String topic, PayloadFormat format, int series, long samples,
                            double samplesPerSecond, int seriesPerRecord, int samplesPerSeries, long seed,
                            long startTimeMs, long scrapeIntervalMs, Map<String, String> kafkaProperties) {
    /** 500 series of 10 scrapes: 5,000 samples a record, like a busy remote-write shard's request. */
    public static final int DEFAULT_SERIES_PER_RECORD = 500;
    public static final int DEFAULT_SAMPLES_PER_SERIES = 10;
    public static final long DEFAULT_SCRAPE_INTERVAL_MS = 15_000;
    public static final long DEFAULT_SEED = 42;

    public LoadgenConfig {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("--bootstrap-servers is missing");
        }
        if (topic == null || topic.isBlank()) {
            throw new IllegalArgumentException("--topic is missing");
        }
        if (format == null) {
            throw new IllegalArgumentException("--format is missing");
        }
        if (series < 1) {
            throw new IllegalArgumentException("--series must be at least 1, was " + series);
        }
        if (samples < 1) {
            throw new IllegalArgumentException("--samples must be at least 1, was " + samples);
        }
        if (!(samplesPerSecond >= 0) || Double.isInfinite(samplesPerSecond)) {
            throw new IllegalArgumentException("--rate must be a number of samples per second >= 0 (0 = unlimited), was "
                    + samplesPerSecond);
        }
        if (seriesPerRecord < 1 || samplesPerSeries < 1) {
            throw new IllegalArgumentException("series per record and samples per series must be at least 1, were "
                    + seriesPerRecord + " and " + samplesPerSeries);
        }
        if ((long) seriesPerRecord * samplesPerSeries > 1_000_000) {
            throw new IllegalArgumentException("a record of " + seriesPerRecord + " x " + samplesPerSeries
                    + " samples is too large (at most 1,000,000 samples a record)");
        }
        if (scrapeIntervalMs < 1) {
            throw new IllegalArgumentException("scrape interval must be at least 1 ms, was " + scrapeIntervalMs);
        }
        kafkaProperties = kafkaProperties == null ? Map.of() : Map.copyOf(kafkaProperties);
    }

    /**
     * Sample-per-line formats (influx, otlp, json) get 100 series x 10 scrapes a record, Telegraf's
     * default batch of 1,000 metrics, as such producers write them. (Larger records are stored too: the
     * router splits a record over several head batches when it must.)
     */
    public static final int DEFAULT_SERIES_PER_LINE_RECORD = 100;

    /**
     * Defaults for the rest: unlimited rate, 500 series x 10 scrapes a record (100 x 10 for influx,
     * otlp and json), seed 42, scrapes 15 s apart ending about now.
     */
    public static LoadgenConfig of(String bootstrapServers, String topic, PayloadFormat format, int series, long samples) {
        long scrapes = series < 1 ? 0 : (samples + series - 1) / series; // the constructor rejects series < 1
        long start = (System.currentTimeMillis() - scrapes * DEFAULT_SCRAPE_INTERVAL_MS) / 1000 * 1000;
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, 0,
                Math.min(series, seriesPerSample(format) ? DEFAULT_SERIES_PER_LINE_RECORD : DEFAULT_SERIES_PER_RECORD),
                DEFAULT_SAMPLES_PER_SERIES, DEFAULT_SEED, start,
                DEFAULT_SCRAPE_INTERVAL_MS, Map.of());
    }

    /** Whether the format's decoder emits a series per sample (so records must stay smaller). */
    private static boolean seriesPerSample(PayloadFormat format) {
        return format == PayloadFormat.INFLUX || format == PayloadFormat.OTLP || format == PayloadFormat.JSON;
    }

    public LoadgenConfig withRate(double samplesPerSecond) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }

    public LoadgenConfig withShape(int seriesPerRecord, int samplesPerSeries) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }

    public LoadgenConfig withTime(long startTimeMs, long scrapeIntervalMs) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }

    public LoadgenConfig withSeed(long seed) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, kafkaProperties);
    }

    public LoadgenConfig withKafkaProperties(Map<String, String> properties) {
        return new LoadgenConfig(bootstrapServers, topic, format, series, samples, samplesPerSecond, seriesPerRecord,
                samplesPerSeries, seed, startTimeMs, scrapeIntervalMs, properties);
    }

    /** The model of the series and values this configuration produces. */
    public NodeExporterModel model() {
        return new NodeExporterModel(series, seed, startTimeMs, scrapeIntervalMs);
    }
}
