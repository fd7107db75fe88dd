package io.sluice.server.config;

import io.sluice.core.head.shard.ShardOptions;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Every configuration key of {@code sluice serve}, with its default and meaning. README.md's
 * configuration table is this enum (a test keeps them equal). Besides these keys, any
 * {@code kafka.<property>} is passed to the Kafka clients verbatim ({@link KafkaProperties}).
 *
 * <p>Defaults are not written here: each is the text of the constant the code uses when nothing is
 * configured ({@link ShardOptions}, {@link LabelLimits#DEFAULT}, {@link DecoderLimits#DEFAULTS},
 * {@link QueryOptions#DEFAULTS}, {@link KafkaSettings}), and the formats are {@link PayloadFormat}'s;
 * ConfigTableTest checks that loading the defaults gives back exactly those values.
 */
public enum ConfigKey {
    DATA_DIR("data.dir", "data", "Directory of the head: shard `i` keeps its write-ahead log in `shard-i/wal`, its "
            + "chunk files in `shard-i/chunks` and its checkpoints in `shard-i`; `head.id` holds the head's id (in offset "
            + "commit metadata and the default static member id)."),
    HTTP_HOST("http.host", "0.0.0.0", "Address the HTTP server (query API, metrics, health) binds to."),
    HTTP_PORT("http.port", "9095", "Port of the HTTP server; 0 picks a free one (logged at start)."),
    HTTP_THREADS("http.threads", "", "max(2, number of cores)",
            "Query API requests (query, query_range, series, labels, export, remote-read) that work at once "
                    + "(1..1024); more wait in arrival order, and a response waiting for a slow client gives its slot "
                    + "back. Health and metrics answer on the event loop."),
    HTTP_MAX_CONNECTIONS("http.max-connections", "", "min(1024, descriptor limit - reserve)",
            "Open HTTP connections; one more closes the connection idle the longest, or itself when none is idle "
                    + "(counted, logged once per burst). Never more than the "
                    + "process' descriptor limit minus a reserve of a quarter of it (at least 256) that the shards keep "
                    + "for WAL segments and chunk files."),
    HTTP_IDLE_TIMEOUT("http.idle-timeout", duration(HttpOptions.DEFAULT_IDLE_TIMEOUT_MS),
            "A connection with no request in progress, or whose client takes no bytes of a response, for this long "
                    + "is closed (1s..1h)."),
    HTTP_HEADER_READ_TIMEOUT("http.header-read-timeout", duration(HttpOptions.DEFAULT_HEADER_TIMEOUT_MS),
            "Longest time from a request's first byte to the end of its headers (1s..1h)."),
    HTTP_REQUEST_TIMEOUT("http.request-timeout", duration(HttpOptions.DEFAULT_REQUEST_TIMEOUT_MS),
            "Longest time from a request's first byte to the end of its body (1s..1h); the query itself is bounded "
                    + "by the `query.*` limits."),
    HTTP_WEB_CONFIG_FILE("http.web-config-file", "", "none",
            "TLS (certificate, key, optional client CA), basic-auth users with bcrypt hashes and bearer tokens for every "
                    + "HTTP endpoint, "
                    + "in the format of Prometheus' `--web.config.file` (see [docs/http.md](docs/http.md#security)); reloaded when it or a file "
                    + "it names changes, and on SIGHUP."),
    HEAD_SHARDS("head.shards", "", "number of cores",
            "Shards: worker threads, each the single writer of its series and its own WAL (1..1024)."),
    HEAD_MAX_SERIES_PER_SHARD("head.max-series-per-shard", number(ShardOptions.DEFAULT_MAX_SERIES),
            "Cardinality limit per shard; samples of new series beyond it are rejected and counted."),
    WAL_SEGMENT_SIZE("wal.segment-size", bytes(ShardOptions.DEFAULT_WAL_SEGMENT_BYTES),
            "Size of a preallocated WAL segment file: a multiple of 4KiB, 64KiB..1GiB. An empty WAL starts "
                    + "with a 1MiB segment and each new one doubles, up to this size, so a small instance takes little disk."),
    WAL_SYNC_INTERVAL("wal.sync-interval", duration(ShardOptions.DEFAULT_WAL_SYNC_INTERVAL_MS),
            "Group commit: each shard forces its WAL at most this often (and on shutdown); offsets are committed "
                    + "to Kafka only after that."),
    HEAD_CHECKPOINT_INTERVAL("head.checkpoint-interval", duration(ShardOptions.DEFAULT_CHECKPOINT_INTERVAL_MS),
            "How often each shard checkpoints (series, open chunks, watermarks; full chunks are in `shard-i/chunks`) "
                    + "and deletes older WAL segments, bounding replay at start to what came since; also on shutdown. 0: only on shutdown."),
    HEAD_SERIES_IDLE_TIMEOUT("head.series-idle-timeout", duration(ShardOptions.DEFAULT_SERIES_IDLE_TIMEOUT_MS),
            "A series whose last sample is this much older than its shard's newest sample has its open chunk cut to "
                    + "the chunk files at the next checkpoint (it stays queryable and costs only its struct, labels and "
                    + "chunk list). 0: never."),
    HEAD_OUT_OF_ORDER_WINDOW("head.out-of-order-window", duration(ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS),
            "A sample older than its series' newest is stored if it is at most this much older than its shard's newest "
                    + "sample (counted `sluice_samples_out_of_order_total`), else rejected as `too_old`. The default suits "
                    + "Kafka: producers that do not key by series spread a series over partitions, read in fetch order, and "
                    + "after a restart or rebalance partitions catch up at different speeds. 0: none is stored (Prometheus' rule)."),
    STORAGE_RETENTION("storage.retention", duration(ShardOptions.DEFAULT_RETENTION_MS),
            "How long samples are kept, in sample time against the shard's newest sample: at each checkpoint closed "
                    + "chunks whose last sample is older are dropped, chunk files nothing references are deleted, and "
                    + "series with no sample inside it are removed. 0: keep forever."),
    QUEUE_BATCHES("queue.batches", number(ShardOptions.DEFAULT_QUEUE_BATCHES),
            "Batches in flight per shard (2..65536). A shard whose batches are all in flight pauses the partitions "
                    + "that feed it."),
    QUEUE_BATCH_BYTES("queue.batch-bytes", bytes(ShardOptions.DEFAULT_BATCH_BYTES),
            "Capacity of one batch (1KiB..1GiB). Memory between consumers and shards is at most "
                    + "shards x queue.batches x queue.batch-bytes."),
    KAFKA_BOOTSTRAP_SERVERS("kafka.bootstrap-servers", null, "required",
            "Kafka brokers to start from, `host:port[,host:port...]`; checked at start."),
    KAFKA_GROUP_ID("kafka.group-id", KafkaSettings.DEFAULT_GROUP_ID, "Consumer group of all Sluice instances that share the topics."),
    KAFKA_GROUP_INSTANCE_ID("kafka.group-instance-id", "", "`sluice-<head id>`",
            "Static membership (`group.instance.id`): a restart within the session timeout keeps the partitions. "
                    + "Consumer thread `i` uses `<id>-<i>`. Unset: named after the data directory (`head.id`), so a "
                    + "restart after a crash rejoins at once; a member killed or stopped for good holds its partitions "
                    + "until its session expires (`kafka.session-timeout`; with the consumer protocol the broker's), "
                    + "as a dynamic member killed does. `none`: dynamic membership."),
    KAFKA_GROUP_PROTOCOL("kafka.group-protocol", KafkaSettings.GroupProtocol.CLASSIC.configName(),
            "Consumer group protocol. `classic`: the clients assign (cooperative-sticky) and the session is "
                    + "`kafka.session-timeout`. `consumer` (KIP-848, brokers 4.0+): the broker assigns, with no "
                    + "group-wide pause, and its group configuration sets session timeout and heartbeat "
                    + "(`consumer.session.timeout.ms`, 45 s unless lowered; see [Operations](#operations))."),
    KAFKA_SESSION_TIMEOUT("kafka.session-timeout", duration(KafkaSettings.DEFAULT_SESSION_TIMEOUT_MS),
            "Classic protocol: a member that stops heartbeating (killed, hung, paused) loses its partitions after "
                    + "this long (1s..30m; Kafka's default: 45s); a heartbeat goes every second (every third of it if "
                    + "shorter). Shorter fails over sooner and rebalances on shorter stalls. The broker must allow it "
                    + "(`group.min.session.timeout.ms`, 6s by default)."),
    KAFKA_CONSUMER_THREADS("kafka.consumer-threads", number(KafkaSettings.DEFAULT_CONSUMER_THREADS), "Consumer threads, each its own KafkaConsumer in the group (1..256)."),
    KAFKA_TOPICS("kafka.topics", null, "required",
            "Topics to consume and the payload format of each: `topic=format[,topic=format...]` "
                    + "(YAML: a map). Formats: " + formatNames() + "."),
    KAFKA_DEAD_LETTER_TOPIC("kafka.dead-letter-topic", "", "none",
            "Where records that cannot be decoded are produced, with the error and source coordinates in headers. "
                    + "Its `max.message.bytes` and `kafka.max.request.size` must exceed the largest record consumed "
                    + "(plus about 1 KiB of headers), or a copy fails (counted and logged)."),
    KAFKA_DEAD_LETTER_SKIPPED_LINES("kafka.dead-letter-skipped-lines", "false",
            "Also copy to `kafka.dead-letter-topic` an influx record stored without some of its lines, with reason "
                    + "`skipped_lines` and the number skipped in header `sluice.skipped.lines`."),
    KAFKA_COMMIT_INTERVAL("kafka.commit-interval", duration(KafkaSettings.DEFAULT_COMMIT_INTERVAL_MS),
            "Least time between two offset commits of a consumer thread. Offsets are committed as soon as a WAL sync "
                    + "(`wal.sync-interval`) makes them durable in every shard, but not more often than this. After a "
                    + "crash, the instance that takes the partitions over stores again what was durable but not yet "
                    + "committed: identical samples, about one sync interval of them (see below the table)."),
    KAFKA_GROUP_LAG_INTERVAL("kafka.group-lag-interval", duration(KafkaSettings.DEFAULT_GROUP_LAG_INTERVAL_MS),
            "How often each instance reads the group's committed offsets, the end offsets and the members' assignments "
                    + "of every partition of the consumed topics (an AdminClient, off the consumer threads) for "
                    + "`sluice_group_lag` and `sluice_group_unowned_partitions`. 0: off; else at least 1s, and longer "
                    + "than `wal.sync-interval` + `kafka.commit-interval`."),
    KAFKA_POLL_TIMEOUT("kafka.poll-timeout", duration(KafkaSettings.DEFAULT_POLL_TIMEOUT_MS), "Longest wait of one poll of a consumer thread."),
    LIMITS_RECORD_BYTES("limits.record-bytes", bytes(DecoderLimits.DEFAULTS.maxRecordBytes()), "Largest Kafka record value accepted; larger ones are rejected (`too_large`)."),
    LIMITS_UNCOMPRESSED_BYTES("limits.uncompressed-bytes", bytes(DecoderLimits.DEFAULTS.maxUncompressedBytes()),
            "Largest uncompressed size of a compressed record (remote-write); also what a decompression buffer grows to."),
    LIMITS_LABELS_PER_SERIES("limits.labels-per-series", number(LabelLimits.DEFAULT.maxLabels()), "Labels with non-empty values per series (1..256)."),
    LIMITS_LABEL_NAME_BYTES("limits.label-name-bytes", bytes(LabelLimits.DEFAULT.maxNameBytes()), "UTF-8 bytes of a label name (1..65535)."),
    LIMITS_LABEL_VALUE_BYTES("limits.label-value-bytes", bytes(LabelLimits.DEFAULT.maxValueBytes()), "UTF-8 bytes of a label value (1..65535)."),
    LIMITS_REQUIRE_METRIC_NAME("limits.require-metric-name", Boolean.toString(LabelLimits.DEFAULT.requireMetricName()), "Reject series without a `__name__` label."),
    QUERY_MAX_SERIES("query.max-series", number(QueryOptions.DEFAULTS.maxSeries()),
            "Series one query (query, query_range, series, export, remote-read) may return; more answer 422."),
    QUERY_MAX_SAMPLES("query.max-samples", number(QueryOptions.DEFAULTS.maxSamples()),
            "Samples (points) one query may return; more answer 422 (an export past its first 64KiB is cut off)."),
    QUERY_LOOKBACK_DELTA("query.lookback-delta", duration(QueryOptions.DEFAULTS.lookbackDeltaMs()),
            "How far back an instant selection looks for a series' latest sample (Prometheus' lookback delta)."),
    QUERY_DELAYED_NAME_REMOVAL("query.delayed-name-removal", Boolean.toString(QueryOptions.DEFAULTS.delayedNameRemoval()),
            "PromQL removes the metric name when the query ends instead of at the function or operator that drops it "
                    + "(Prometheus' `--enable-feature=promql-delayed-name-removal`, also off by default there)."),
    STORE_GRPC_PORT("store.grpc.port", "", "off",
            "Port of the Thanos StoreAPI gRPC server (a Thanos Querier's `--endpoint`; Thanos' own convention is "
                    + "10901); 0 picks a free one (logged at start). Off unless set: it serves every series to whoever "
                    + "connects."),
    STORE_GRPC_HOST("store.grpc.host", "0.0.0.0", "Address the StoreAPI gRPC server binds to."),
    STORE_EXTERNAL_LABELS("store.external-labels", "", "none",
            "Labels this instance adds to every series it serves over the StoreAPI and advertises to the Querier, "
                    + "`name=value[,name=value...]` (YAML: a map), e.g. `cluster=eu1,sluice_instance=a`."),
    STORE_GRPC_MAX_MESSAGE_SIZE("store.grpc.max-message-size", bytes(StoreApiOptions.DEFAULT_MAX_MESSAGE_BYTES),
            "Largest gRPC request the StoreAPI server accepts (1KiB..1GiB); one series is one response message."),
    STORE_GRPC_TLS_CERT_FILE("store.grpc.tls-cert-file", "", "none",
            "PEM certificate chain: the StoreAPI serves TLS (with `store.grpc.tls-key-file`); unset: plaintext."),
    STORE_GRPC_TLS_KEY_FILE("store.grpc.tls-key-file", "", "none", "PEM private key (PKCS#8) of `store.grpc.tls-cert-file`."),
    QUERY_TIMEOUT("query.timeout", duration(QueryOptions.DEFAULTS.timeoutMs()),
            "The longest a PromQL query (query, query_range) may evaluate; longer ones answer 503 `timeout`. "
                    + "A request's `timeout` parameter can only shorten it.");

    private final String key;
    /** The default as text, parsed like any other value; "" = unset (optional); null = required. */
    private final String defaultValue;
    private final String documentedDefault;
    private final String meaning;

    ConfigKey(String key, String defaultValue, String meaning) {
        this(key, defaultValue, defaultValue, meaning);
    }

    ConfigKey(String key, String defaultValue, String documentedDefault, String meaning) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.documentedDefault = documentedDefault;
        this.meaning = meaning;
    }

    private static String number(long value) {
        return Long.toString(value);
    }

    private static String bytes(long value) {
        return ConfigValues.formatBytes(value);
    }

    private static String duration(long ms) {
        return ConfigValues.formatDurationMs(ms);
    }

    /** The configuration names of every payload format, as the table lists them. */
    private static String formatNames() {
        return Arrays.stream(PayloadFormat.values()).map(f -> "`" + f.configName() + "`").collect(Collectors.joining(", "));
    }

    /** The default of {@code head.shards}: one shard per core. */
    static int defaultShards() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The dotted key, e.g. {@code http.port}. */
    public String key() {
        return key;
    }

    /** The default value as text, "" when the key is optional and unset by default, null when it is required. */
    public String defaultValue() {
        return defaultValue;
    }

    /** The default as the README shows it, e.g. {@code number of cores} or {@code required}. */
    public String documentedDefault() {
        return documentedDefault;
    }

    public String meaning() {
        return meaning;
    }

    /** The environment variable that sets this key: {@code http.port} → {@code SLUICE_HTTP_PORT}. */
    public String environmentVariable() {
        return environmentVariable(key);
    }

    /** Upper case, with {@code .} and {@code -} turned into {@code _}, behind {@code SLUICE_}. */
    static String environmentVariable(String key) {
        return EnvironmentSettings.PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * The configuration table of README.md, generated from this enum (a test checks the README
     * holds exactly this between its {@code config-table} markers).
     */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| key | default | environment | meaning |\n|---|---|---|---|\n");
        for (ConfigKey k : values()) {
            boolean literal = k.defaultValue != null && !k.defaultValue.isEmpty(); // else "required", "none", ...
            table.append("| `").append(k.key).append("` | ")
                    .append(literal ? "`" + k.documentedDefault + "`" : k.documentedDefault)
                    .append(" | `").append(k.environmentVariable()).append("` | ").append(k.meaning).append(" |\n");
        }
        table.append("| `kafka.<property>` | | `SLUICE_KAFKA_<PROPERTY>` | Any Kafka consumer, producer or admin client "
                + "property, passed verbatim (e.g. `kafka.security.protocol`, `kafka.sasl.mechanism`, "
                + "`kafka.fetch.max.bytes`); `_` in the variable name stands for `.`. |\n");
        return table.toString();
    }

    /** The key named {@code name}, or null. */
    public static ConfigKey byName(String name) {
        for (ConfigKey k : values()) {
            if (k.key.equals(name)) {
                return k;
            }
        }
        return null;
    }
}
