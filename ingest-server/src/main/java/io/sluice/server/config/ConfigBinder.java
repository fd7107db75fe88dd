package io.sluice.server.config;

import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns resolved settings (one per key, last source wins) into a {@link SluiceConfig}, parsing and
 * range-checking every value. The first problem found is thrown as one line naming the key, the
 * value and its source.
 */
final class ConfigBinder {
    /** Kafka's own rule for topic names. */
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final long WAL_SEGMENT_MIN_BYTES = 64 << 10;
    private static final long WAL_SEGMENT_MAX_BYTES = 1 << 30;

    private final Map<ConfigKey, Setting> settings;
    private final Map<String, String> kafkaProperties;

    ConfigBinder(Map<ConfigKey, Setting> settings, Map<String, String> kafkaProperties) {
        this.settings = new EnumMap<>(settings);
        this.kafkaProperties = kafkaProperties;
    }

    SluiceConfig bind() throws ConfigException {
        Path dataDir = path(ConfigKey.DATA_DIR);
        HeadOptions head = new HeadOptions(dataDir, integer(ConfigKey.HEAD_SHARDS, 1, 1024, ConfigKey.defaultShards()),
                ShardOptions.defaults(dataDir)
                        .withWalSegmentBytes(walSegmentBytes())
                        .withWalSyncIntervalMs(durationMs(ConfigKey.WAL_SYNC_INTERVAL, 0, 3_600_000))
                        .withQueue(integer(ConfigKey.QUEUE_BATCHES, 2, 65_536, 0),
                                (int) bytes(ConfigKey.QUEUE_BATCH_BYTES, 1 << 10, 1 << 30))
                        .withMaxSeries(integer(ConfigKey.HEAD_MAX_SERIES_PER_SHARD, 1, Integer.MAX_VALUE, 0))
                        .withCheckpointIntervalMs(durationMs(ConfigKey.HEAD_CHECKPOINT_INTERVAL, 0, 7 * 86_400_000L))
                        .withSeriesIdleTimeoutMs(durationMs(ConfigKey.HEAD_SERIES_IDLE_TIMEOUT, 0, 365 * 86_400_000L))
                        .withRetentionMs(durationMs(ConfigKey.STORAGE_RETENTION, 0, 100L * 365 * 86_400_000L))
                        .withOutOfOrderWindowMs(durationMs(ConfigKey.HEAD_OUT_OF_ORDER_WINDOW, 0, 365 * 86_400_000L)));
        DecoderLimits decoderLimits = new DecoderLimits(
                (int) bytes(ConfigKey.LIMITS_RECORD_BYTES, 1, Integer.MAX_VALUE),
                (int) bytes(ConfigKey.LIMITS_UNCOMPRESSED_BYTES, 1, Integer.MAX_VALUE));
        LabelLimits labelLimits = new LabelLimits(
                integer(ConfigKey.LIMITS_LABELS_PER_SERIES, 1, CanonicalLabels.MAX_LABELS, 0),
                (int) bytes(ConfigKey.LIMITS_LABEL_NAME_BYTES, 1, CanonicalLabels.MAX_NAME_BYTES),
                (int) bytes(ConfigKey.LIMITS_LABEL_VALUE_BYTES, 1, CanonicalLabels.MAX_VALUE_BYTES),
                bool(ConfigKey.LIMITS_REQUIRE_METRIC_NAME));
        QueryOptions query = new QueryOptions(
                integer(ConfigKey.QUERY_MAX_SERIES, 1, Integer.MAX_VALUE, 0),
                integer(ConfigKey.QUERY_MAX_SAMPLES, 1, Integer.MAX_VALUE, 0),
                durationMs(ConfigKey.QUERY_LOOKBACK_DELTA, 1, 30L * 86_400_000),
                durationMs(ConfigKey.QUERY_TIMEOUT, 1, 86_400_000L),
                bool(ConfigKey.QUERY_DELAYED_NAME_REMOVAL));
        return new SluiceConfig(dataDir, host(), integer(ConfigKey.HTTP_PORT, 0, 65_535, 0), head, kafka(),
                decoderLimits, labelLimits, query, http(), storeApi());
    }

    private HttpOptions http() throws ConfigException {
        return new HttpOptions(
                integer(ConfigKey.HTTP_THREADS, 1, 1024, HttpOptions.defaultThreads()),
                integer(ConfigKey.HTTP_MAX_CONNECTIONS, 1, 1_000_000, HttpOptions.defaultMaxConnections()),
                durationMs(ConfigKey.HTTP_IDLE_TIMEOUT, 1_000, 3_600_000),
                durationMs(ConfigKey.HTTP_HEADER_READ_TIMEOUT, 1_000, 3_600_000),
                durationMs(ConfigKey.HTTP_REQUEST_TIMEOUT, 1_000, 3_600_000),
                optional(ConfigKey.HTTP_WEB_CONFIG_FILE) == null ? null : path(ConfigKey.HTTP_WEB_CONFIG_FILE));
    }

    private StoreApiOptions storeApi() throws ConfigException {
        String host = text(ConfigKey.STORE_GRPC_HOST);
        if (host.chars().anyMatch(Character::isWhitespace)) {
            throw ConfigException.badValue(settings.get(ConfigKey.STORE_GRPC_HOST), "is not a host name or address");
        }
        String cert = optional(ConfigKey.STORE_GRPC_TLS_CERT_FILE);
        String key = optional(ConfigKey.STORE_GRPC_TLS_KEY_FILE);
        if ((cert == null) != (key == null)) {
            ConfigKey set = cert == null ? ConfigKey.STORE_GRPC_TLS_KEY_FILE : ConfigKey.STORE_GRPC_TLS_CERT_FILE;
            throw ConfigException.badValue(settings.get(set), "needs " + (cert == null
                    ? ConfigKey.STORE_GRPC_TLS_CERT_FILE : ConfigKey.STORE_GRPC_TLS_KEY_FILE).key() + " as well");
        }
        return new StoreApiOptions(host, integer(ConfigKey.STORE_GRPC_PORT, 0, 65_535, StoreApiOptions.OFF),
                externalLabels(), (int) bytes(ConfigKey.STORE_GRPC_MAX_MESSAGE_SIZE, 1 << 10, 1 << 30),
                cert == null ? null : Path.of(cert), key == null ? null : Path.of(key));
    }

    private Map<String, String> externalLabels() throws ConfigException {
        Setting setting = settings.get(ConfigKey.STORE_EXTERNAL_LABELS);
        String text = optional(ConfigKey.STORE_EXTERNAL_LABELS);
        Map<String, String> labels = new TreeMap<>();
        if (text == null) {
            return labels;
        }
        for (String entry : text.split(",", -1)) {
            int eq = entry.indexOf('=');
            String name = eq < 0 ? "" : entry.substring(0, eq).strip();
            String value = eq < 0 ? "" : entry.substring(eq + 1).strip();
            if (name.isEmpty() || value.isEmpty() || name.equals("__name__") || labels.put(name, value) != null) {
                throw ConfigException.badValue(setting, "is not a list of distinct name=value with non-empty values "
                        + "(bad entry '" + entry.strip() + "')");
            }
        }
        return labels;
    }

    private KafkaSettings kafka() throws ConfigException {
        return new KafkaSettings(
                bootstrapServers(),
                text(ConfigKey.KAFKA_GROUP_ID),
                optional(ConfigKey.KAFKA_GROUP_INSTANCE_ID),
                integer(ConfigKey.KAFKA_CONSUMER_THREADS, 1, 256, 0),
                topics(),
                kafkaProperties,
                deadLetterTopic(),
                durationMs(ConfigKey.KAFKA_COMMIT_INTERVAL, 1, 3_600_000),
                durationMs(ConfigKey.KAFKA_POLL_TIMEOUT, 1, 60_000),
                bool(ConfigKey.KAFKA_DEAD_LETTER_SKIPPED_LINES),
                groupLagIntervalMs(),
                groupProtocol(),
                sessionTimeoutMs());
    }

    private KafkaSettings.GroupProtocol groupProtocol() throws ConfigException {
        String value = text(ConfigKey.KAFKA_GROUP_PROTOCOL);
        for (KafkaSettings.GroupProtocol p : KafkaSettings.GroupProtocol.values()) {
            if (p.configName().equals(value)) {
                return p;
            }
        }
        throw ConfigException.badValue(settings.get(ConfigKey.KAFKA_GROUP_PROTOCOL), "is not classic or consumer");
    }

    /** The classic protocol's; set with the consumer protocol, it would silently do nothing, so it is refused. */
    private long sessionTimeoutMs() throws ConfigException {
        Setting setting = settings.get(ConfigKey.KAFKA_SESSION_TIMEOUT);
        if (groupProtocol() == KafkaSettings.GroupProtocol.CONSUMER && !"default".equals(setting.source())) {
            throw ConfigException.badValue(setting, "applies to the classic group protocol only: with "
                    + "kafka.group-protocol=consumer the broker's group configuration sets it "
                    + "(consumer.session.timeout.ms)");
        }
        return durationMs(ConfigKey.KAFKA_SESSION_TIMEOUT, KafkaSettings.MIN_SESSION_TIMEOUT_MS,
                KafkaSettings.MAX_SESSION_TIMEOUT_MS);
    }

    // ---------------------------------------------------------------- per-key rules

    private long groupLagIntervalMs() throws ConfigException {
        long ms = durationMs(ConfigKey.KAFKA_GROUP_LAG_INTERVAL, 0, 3_600_000);
        if (ms != 0 && ms < 1_000) {
            throw ConfigException.badValue(settings.get(ConfigKey.KAFKA_GROUP_LAG_INTERVAL), "must be 0 (off) or at least 1s");
        }
        return ms;
    }

    private long walSegmentBytes() throws ConfigException {
        long bytes = bytes(ConfigKey.WAL_SEGMENT_SIZE, WAL_SEGMENT_MIN_BYTES, WAL_SEGMENT_MAX_BYTES);
        if (bytes % 4096 != 0) {
            throw ConfigException.badValue(settings.get(ConfigKey.WAL_SEGMENT_SIZE), "is not a multiple of 4KiB");
        }
        return bytes;
    }

    private String host() throws ConfigException {
        String host = text(ConfigKey.HTTP_HOST);
        if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
            throw ConfigException.badValue(settings.get(ConfigKey.HTTP_HOST), "is not a host name or address");
        }
        return host;
    }

    private String bootstrapServers() throws ConfigException {
        String servers = text(ConfigKey.KAFKA_BOOTSTRAP_SERVERS);
        for (String server : servers.split(",", -1)) {
            String s = server.strip();
            int colon = s.lastIndexOf(':');
            Long port = colon > 0 ? ConfigValues.parseLong(s.substring(colon + 1)) : null;
            if (port == null || port < 1 || port > 65_535) {
                throw ConfigException.badValue(settings.get(ConfigKey.KAFKA_BOOTSTRAP_SERVERS),
                        "is not a list of host:port (bad entry '" + s + "')");
            }
        }
        return servers.replace(" ", "");
    }

    private Map<String, PayloadFormat> topics() throws ConfigException {
        Setting setting = settings.get(ConfigKey.KAFKA_TOPICS);
        Map<String, PayloadFormat> topics = new LinkedHashMap<>();
        for (String entry : text(ConfigKey.KAFKA_TOPICS).split(",", -1)) {
            int eq = entry.indexOf('=');
            String topic = eq < 0 ? entry.strip() : entry.substring(0, eq).strip();
            if (eq < 0 || !TOPIC.matcher(topic).matches()) {
                throw ConfigException.badValue(setting, "is not a list of topic=format (bad entry '" + entry.strip() + "')");
            }
            try {
                topics.put(topic, PayloadFormat.fromConfigName(entry.substring(eq + 1).strip()));
            } catch (IllegalArgumentException e) {
                throw ConfigException.badValue(setting, "names a bad format for topic " + topic + ": " + e.getMessage());
            }
        }
        return topics;
    }

    private String deadLetterTopic() throws ConfigException {
        String topic = optional(ConfigKey.KAFKA_DEAD_LETTER_TOPIC);
        if (topic != null && !TOPIC.matcher(topic).matches()) {
            throw ConfigException.badValue(settings.get(ConfigKey.KAFKA_DEAD_LETTER_TOPIC),
                    "is not a valid Kafka topic name ([a-zA-Z0-9._-], 1..249 characters)");
        }
        return topic;
    }

    // ---------------------------------------------------------------- value kinds

    /** The value of a required key (or one with a default); a missing required value is an error. */
    private String text(ConfigKey key) throws ConfigException {
        Setting setting = settings.get(key);
        if (setting == null || setting.value().isBlank()) {
            throw new ConfigException("missing required value: " + key.key() + " (set it in the configuration file, as --"
                    + key.key() + "=... or as " + key.environmentVariable() + ")");
        }
        return setting.value().strip();
    }

    /** The value of an optional key, or null when unset. */
    private String optional(ConfigKey key) {
        Setting setting = settings.get(key);
        return setting == null || setting.value().isBlank() ? null : setting.value().strip();
    }

    private Path path(ConfigKey key) throws ConfigException {
        try {
            return Path.of(text(key));
        } catch (InvalidPathException e) {
            throw ConfigException.badValue(settings.get(key), "is not a valid path: " + e.getReason());
        }
    }

    /** An integer in [min, max]; {@code unsetDefault} when the key's default is "" and nothing set it. */
    private int integer(ConfigKey key, int min, int max, int unsetDefault) throws ConfigException {
        if (optional(key) == null && "".equals(key.defaultValue())) {
            return unsetDefault;
        }
        Long value = ConfigValues.parseLong(text(key));
        if (value == null || value < min || value > max) {
            throw ConfigException.badValue(settings.get(key), "is not a whole number in " + min + ".." + max);
        }
        return value.intValue();
    }

    private long bytes(ConfigKey key, long min, long max) throws ConfigException {
        Long value = ConfigValues.parseBytes(text(key));
        if (value == null) {
            throw ConfigException.badValue(settings.get(key), "is not a size (like 4096, 64KiB, 128MiB, 1GiB)");
        }
        if (value < min || value > max) {
            throw ConfigException.badValue(settings.get(key), "is out of range " + ConfigValues.formatBytes(min) + ".."
                    + ConfigValues.formatBytes(max));
        }
        return value;
    }

    private long durationMs(ConfigKey key, long minMs, long maxMs) throws ConfigException {
        Long value = ConfigValues.parseDurationMs(text(key));
        if (value == null) {
            throw ConfigException.badValue(settings.get(key), "is not a duration (like 100ms, 5s, 2m, 1h)");
        }
        if (value < minMs || value > maxMs) {
            throw ConfigException.badValue(settings.get(key), "is out of range " + minMs + "ms.." + maxMs + "ms");
        }
        return value;
    }

    private boolean bool(ConfigKey key) throws ConfigException {
        Boolean value = ConfigValues.parseBoolean(text(key));
        if (value == null) {
            throw ConfigException.badValue(settings.get(key), "is not true or false");
        }
        return value;
    }
}
