package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.PayloadFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading: defaults, the precedence of file, environment and flags, and one readable line per error. */
class ConfigLoaderTest {
    private static final List<String> REQUIRED = List.of("--kafka.bootstrap-servers=localhost:9092", "--kafka.topics=m=sluice");

    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void defaultsFillEverythingButTheRequiredKeys() throws ConfigException {
        SluiceConfig config = ConfigLoader.load(null, Map.of(), REQUIRED);
        assertThat(config.dataDir()).isEqualTo(Path.of("data"));
        assertThat(config.httpHost()).isEqualTo("0.0.0.0");
        assertThat(config.httpPort()).isEqualTo(9095);
        assertThat(config.head().shards()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(config.head().perShard().walSegmentBytes()).isEqualTo(128L << 20);
        assertThat(config.head().perShard().walSyncIntervalMs()).isEqualTo(100);
        assertThat(config.head().perShard().queueBatches()).isEqualTo(8);
        assertThat(config.head().perShard().batchBytes()).isEqualTo(256 << 10);
        assertThat(config.head().perShard().maxSeries()).isEqualTo(2_000_000);
        assertThat(config.kafka().groupId()).isEqualTo("sluice");
        assertThat(config.kafka().groupInstanceId()).isNull();
        assertThat(config.kafka().deadLetterTopic()).isNull();
        assertThat(config.kafka().consumerThreads()).isEqualTo(1);
        assertThat(config.kafka().commitIntervalMs()).isEqualTo(100);
        assertThat(config.kafka().formatByTopic()).containsExactly(Map.entry("m", PayloadFormat.SLUICE));
        assertThat(config.decoderLimits().maxRecordBytes()).isEqualTo(8 << 20);
        assertThat(config.labelLimits().maxLabels()).isEqualTo(128);
        assertThat(config.labelLimits().requireMetricName()).isTrue();
    }

    @Test
    void yamlNestedDottedListsAndTopicMap() throws Exception {
        Path file = yaml("""
                data.dir: /var/lib/sluice
                http:
                  host: 127.0.0.1
                  port: 8080
                head:
                  shards: 3
                  max-series-per-shard: 1_000
                wal: {segment-size: 64MiB, sync-interval: 250ms}
                kafka:
                  bootstrap-servers: [b1:9092, b2:9093]
                  group-instance-id: sluice-a
                  topics:
                    metrics.node: sluice
                    prom: prometheus-remote-write
                  fetch.max.bytes: 1048576
                  security:
                    protocol: SASL_SSL
                limits:
                  labels-per-series: 64
                  label-value-bytes: 2KiB
                  require-metric-name: false
                """);
        SluiceConfig config = ConfigLoader.load(file, Map.of(), List.of());
        assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/sluice"));
        assertThat(config.head().dataDirectory()).isEqualTo(Path.of("/var/lib/sluice"));
        assertThat(config.httpHost()).isEqualTo("127.0.0.1");
        assertThat(config.httpPort()).isEqualTo(8080);
        assertThat(config.head().shards()).isEqualTo(3);
        assertThat(config.head().perShard().maxSeries()).isEqualTo(1_000);
        assertThat(config.head().perShard().walSegmentBytes()).isEqualTo(64L << 20);
        assertThat(config.head().perShard().walSyncIntervalMs()).isEqualTo(250);
        assertThat(config.kafka().bootstrapServers()).isEqualTo("b1:9092,b2:9093");
        assertThat(config.kafka().groupInstanceId()).isEqualTo("sluice-a");
        assertThat(config.kafka().formatByTopic()).containsExactly(
                Map.entry("metrics.node", PayloadFormat.SLUICE), Map.entry("prom", PayloadFormat.PROMETHEUS_REMOTE_WRITE));
        assertThat(config.kafka().clientProperties())
                .containsExactlyInAnyOrderEntriesOf(Map.of("fetch.max.bytes", "1048576", "security.protocol", "SASL_SSL"));
        assertThat(config.labelLimits().maxLabels()).isEqualTo(64);
        assertThat(config.labelLimits().maxValueBytes()).isEqualTo(2048);
        assertThat(config.labelLimits().requireMetricName()).isFalse();
    }

    @Test
    void environmentOverridesTheFileAndFlagsOverrideTheEnvironment() throws Exception {
        Path file = yaml("""
                http.port: 1111
                head.shards: 2
                queue.batches: 4
                kafka: {bootstrap-servers: "k:9092", topics: {a: sluice}}
                """);
        Map<String, String> env = Map.of(
                "SLUICE_HTTP_PORT", "2222",
                "SLUICE_HEAD_SHARDS", "5",
                "SLUICE_HEAD_MAX_SERIES_PER_SHARD", "77",
                "SLUICE_KAFKA_FETCH_MAX_BYTES", "999",
                "SLUICE_KAFKA_TOPICS", "b=prometheus-remote-write",
                "PATH", "/usr/bin");
        SluiceConfig config = ConfigLoader.load(file, env, List.of("--head.shards=7"));
        assertThat(config.httpPort()).isEqualTo(2222);                      // env over file
        assertThat(config.head().shards()).isEqualTo(7);                    // flag over env
        assertThat(config.head().perShard().queueBatches()).isEqualTo(4);              // file over default
        assertThat(config.head().perShard().maxSeries()).isEqualTo(77);        // dashed key from env
        assertThat(config.kafka().clientProperties()).containsEntry("fetch.max.bytes", "999");
        assertThat(config.kafka().formatByTopic()).containsOnlyKeys("b");   // a later topic map replaces the set
    }

    @Test
    void presetsReplaceDefaultsButNotTheUsersSettings() throws ConfigException {
        SluiceConfig config = ConfigLoader.load(Map.of("http.port", "1234", "http.host", "127.0.0.1",
                        "kafka.bootstrap-servers", "x:1", "kafka.topics", "t=sluice"), null,
                Map.of(), List.of("--http.port=0"));
        assertThat(config.httpHost()).isEqualTo("127.0.0.1");
        assertThat(config.httpPort()).isZero();
    }

    @Test
    void everyKeyHasItsEnvironmentVariable() {
        assertThat(ConfigKey.HTTP_PORT.environmentVariable()).isEqualTo("SLUICE_HTTP_PORT");
        assertThat(ConfigKey.HEAD_MAX_SERIES_PER_SHARD.environmentVariable()).isEqualTo("SLUICE_HEAD_MAX_SERIES_PER_SHARD");
        assertThat(ConfigKey.KAFKA_BOOTSTRAP_SERVERS.environmentVariable()).isEqualTo("SLUICE_KAFKA_BOOTSTRAP_SERVERS");
    }

    // ---------------------------------------------------------------- errors: one line, naming key and source

    private static String error(Path file, Map<String, String> env, String... flags) {
        try {
            ConfigLoader.load(file, env, List.of(flags));
        } catch (ConfigException e) {
            assertThat(e.getMessage()).doesNotContain("\n");
            assertThat(e.getStackTrace()).isEmpty();
            return e.getMessage();
        }
        throw new AssertionError("no configuration error for " + List.of(flags));
    }

    private static String error(String... flags) {
        String[] all = new String[flags.length + 2];
        System.arraycopy(REQUIRED.toArray(new String[0]), 0, all, 0, 2);
        System.arraycopy(flags, 0, all, 2, flags.length);
        return error(null, Map.of(), all);
    }

    @Test
    void unknownKeysFromEachSourceWithASuggestion() throws IOException {
        assertThat(error("--http.prot=1")).isEqualTo("unknown key 'http.prot' (flag --http.prot); did you mean 'http.port'?");
        assertThat(error(null, Map.of("SLUICE_HEAD_SHARD", "2"), REQUIRED.toArray(new String[0])))
                .isEqualTo("unknown key: environment variable SLUICE_HEAD_SHARD names no configuration key; "
                        + "did you mean 'SLUICE_HEAD_SHARDS'?");
        assertThat(error(yaml("wal:\n  segment-sise: 1MiB\n"), Map.of(), REQUIRED.toArray(new String[0])))
                .isEqualTo("unknown key 'wal.segment-sise' (sluice.yaml line 2); did you mean 'wal.segment-size'?");
        assertThat(error("--colour=blue")).isEqualTo("unknown key 'colour' (flag --colour)");
        assertThat(error("--kafka.comit-interval=1s")).startsWith("unknown key 'kafka.comit-interval'")
                .endsWith("did you mean 'kafka.commit-interval'?");
    }

    @Test
    void kafkaPropertiesMustBeKafkaClientPropertiesNotManagedOnes() {
        assertThat(error("--kafka.fetch.max.byte=1")).isEqualTo("unknown key 'kafka.fetch.max.byte' (flag "
                + "--kafka.fetch.max.byte): neither a Sluice key nor a Kafka client property; did you mean 'fetch.max.bytes'?");
        assertThat(error("--kafka.enable.auto.commit=true")).isEqualTo("kafka.enable.auto.commit cannot be set (flag "
                + "--kafka.enable.auto.commit): Sluice commits offsets itself, only once every shard holds them durably");
        assertThat(error("--kafka.bootstrap.servers=x:1")).contains("use kafka.bootstrap-servers");
    }

    @Test
    void groupLagIntervalIsOffOrAtLeastASecond() {
        assertThat(error("--kafka.group-lag-interval=500ms")).isEqualTo("kafka.group-lag-interval: '500ms' must be 0 (off) "
                + "or at least 1s (flag --kafka.group-lag-interval)");
    }

    @Test
    void groupProtocolAndSessionTimeout() throws ConfigException {
        List<String> flags = new java.util.ArrayList<>(REQUIRED);
        flags.addAll(List.of("--kafka.group-protocol=consumer", "--kafka.group.remote.assignor=uniform"));
        KafkaSettings kafka = ConfigLoader.load(null, Map.of(), flags).kafka();
        assertThat(kafka.groupProtocol()).isEqualTo(KafkaSettings.GroupProtocol.CONSUMER);
        assertThat(ConfigLoader.load(null, Map.of("SLUICE_KAFKA_SESSION_TIMEOUT", "6s"), REQUIRED).kafka().sessionTimeoutMs())
                .isEqualTo(6_000);
        assertThat(error("--kafka.group-protocol=modern"))
                .isEqualTo("kafka.group-protocol: 'modern' is not classic or consumer (flag --kafka.group-protocol)");
        assertThat(error("--kafka.session-timeout=500ms"))
                .isEqualTo("kafka.session-timeout: '500ms' is out of range 1000ms..1800000ms (flag --kafka.session-timeout)");
        assertThat(error("--kafka.group-protocol=consumer", "--kafka.session-timeout=6s"))
                .startsWith("kafka.session-timeout: '6s' applies to the classic group protocol only");
        assertThat(error("--kafka.session.timeout.ms=6000")).isEqualTo("kafka.session.timeout.ms cannot be set (flag "
                + "--kafka.session.timeout.ms): use kafka.session-timeout");
        assertThat(error("--kafka.group.protocol=consumer")).endsWith("use kafka.group-protocol");
    }

    @Test
    void badValuesNameTheKeyTheValueAndTheSource() {
        assertThat(error("--http.port=abc")).isEqualTo("http.port: 'abc' is not a whole number in 0..65535 (flag --http.port)");
        assertThat(error("--http.port=70000")).isEqualTo("http.port: '70000' is not a whole number in 0..65535 (flag --http.port)");
        assertThat(error("--wal.segment-size=12XB"))
                .isEqualTo("wal.segment-size: '12XB' is not a size (like 4096, 64KiB, 128MiB, 1GiB) (flag --wal.segment-size)");
        assertThat(error("--wal.segment-size=100000")).isEqualTo("wal.segment-size: '100000' is not a multiple of 4KiB (flag --wal.segment-size)");
        assertThat(error("--wal.segment-size=2GiB")).isEqualTo("wal.segment-size: '2GiB' is out of range 64KiB..1GiB (flag --wal.segment-size)");
        assertThat(error("--wal.sync-interval=soon")).isEqualTo("wal.sync-interval: 'soon' is not a duration (like 100ms, 5s, 2m, 1h) (flag --wal.sync-interval)");
        assertThat(error("--head.shards=0")).isEqualTo("head.shards: '0' is not a whole number in 1..1024 (flag --head.shards)");
        assertThat(error("--queue.batches=1")).isEqualTo("queue.batches: '1' is not a whole number in 2..65536 (flag --queue.batches)");
        assertThat(error("--limits.require-metric-name=yes")).isEqualTo("limits.require-metric-name: 'yes' is not true or false (flag --limits.require-metric-name)");
        assertThat(error("--limits.label-name-bytes=100KiB")).isEqualTo("limits.label-name-bytes: '100KiB' is out of range 1B..65535B (flag --limits.label-name-bytes)");
        assertThat(error("--kafka.dead-letter-topic=bad topic")).startsWith("kafka.dead-letter-topic: 'bad topic' is not a valid Kafka topic name");
    }

    @Test
    void storageRetentionDefaultsToFifteenDaysTakesZeroForeverAndRefusesNonsense() throws ConfigException {
        assertThat(ConfigLoader.load(null, Map.of(), REQUIRED).head().perShard().retentionMs()).isEqualTo(15L * 86_400_000L);
        List<String> flags = new java.util.ArrayList<>(REQUIRED);
        flags.add("--storage.retention=0");
        assertThat(ConfigLoader.load(null, Map.of(), flags).head().perShard().retentionMs()).isZero();
        assertThat(ConfigLoader.load(null, Map.of("SLUICE_STORAGE_RETENTION", "36h"), REQUIRED).head().perShard().retentionMs())
                .isEqualTo(36L * 3_600_000L);
        assertThat(error("--storage.retention=forever")).startsWith("storage.retention: 'forever' is not a duration")
                .endsWith("(flag --storage.retention)");
        assertThat(error("--storage.retention=-1d")).startsWith("storage.retention: '-1d'");
    }

    @Test
    void httpThreadsDefaultsToTheCoresAtLeastTwoAndIsRangeChecked() throws ConfigException {
        assertThat(ConfigLoader.load(null, Map.of(), REQUIRED).httpThreads())
                .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
        List<String> flags = new java.util.ArrayList<>(REQUIRED);
        flags.add("--http.threads=7");
        assertThat(ConfigLoader.load(null, Map.of(), flags).httpThreads()).isEqualTo(7);
        assertThat(ConfigLoader.load(null, Map.of("SLUICE_HTTP_THREADS", "5"), REQUIRED).httpThreads()).isEqualTo(5);
        assertThat(error("--http.threads=0")).isEqualTo("http.threads: '0' is not a whole number in 1..1024 (flag --http.threads)");
    }

    @Test
    void httpLimitsHaveDefaultsAndAreRangeChecked() throws ConfigException {
        HttpOptions http = ConfigLoader.load(null, Map.of(), REQUIRED).http();
        assertThat(http.maxConnections()).isEqualTo(HttpOptions.defaultMaxConnections());
        assertThat(http.idleTimeoutMs()).isEqualTo(60_000);
        assertThat(http.headerTimeoutMs()).isEqualTo(10_000);
        assertThat(http.requestTimeoutMs()).isEqualTo(60_000);
        assertThat(http.webConfigFile()).isNull();
        List<String> flags = new java.util.ArrayList<>(REQUIRED);
        flags.addAll(List.of("--http.max-connections=50", "--http.idle-timeout=30s", "--http.header-read-timeout=5s",
                "--http.request-timeout=2m", "--http.web-config-file=/etc/sluice/web.yml"));
        http = ConfigLoader.load(null, Map.of(), flags).http();
        assertThat(http).isEqualTo(new HttpOptions(http.threads(), 50, 30_000, 5_000, 120_000,
                Path.of("/etc/sluice/web.yml")));
        assertThat(error("--http.max-connections=0"))
                .isEqualTo("http.max-connections: '0' is not a whole number in 1..1000000 (flag --http.max-connections)");
        assertThat(error("--http.idle-timeout=10ms")).startsWith("http.idle-timeout: '10ms' is out of range 1000ms..");
    }

    @Test
    void badTopicsAndBrokers() {
        assertThat(error(null, Map.of(), "--kafka.bootstrap-servers=localhost", "--kafka.topics=m=sluice"))
                .isEqualTo("kafka.bootstrap-servers: 'localhost' is not a list of host:port (bad entry 'localhost') (flag --kafka.bootstrap-servers)");
        assertThat(error(null, Map.of(), "--kafka.bootstrap-servers=h:1", "--kafka.topics=m=influxdb"))
                .isEqualTo("kafka.topics: 'm=influxdb' names a bad format for topic m: unknown payload format 'influxdb'; "
                        + "known formats: prometheus-remote-write, prometheus-remote-write-v2, sluice, influx, otlp, json (flag --kafka.topics)");
        assertThat(error(null, Map.of(), "--kafka.bootstrap-servers=h:1", "--kafka.topics=metrics"))
                .isEqualTo("kafka.topics: 'metrics' is not a list of topic=format (bad entry 'metrics') (flag --kafka.topics)");
    }

    @Test
    void missingRequiredValuesSayHowToSetThem() {
        assertThat(error(null, Map.of(), "--kafka.bootstrap-servers=h:1")).isEqualTo("missing required value: kafka.topics "
                + "(set it in the configuration file, as --kafka.topics=... or as SLUICE_KAFKA_TOPICS)");
        assertThat(error(null, Map.of(), "--kafka.topics=m=sluice", "--kafka.bootstrap-servers="))
                .startsWith("missing required value: kafka.bootstrap-servers");
    }

    @Test
    void fileProblemsAreOneLineToo() throws IOException {
        assertThat(error(dir.resolve("absent.yaml"), Map.of())).isEqualTo("configuration file " + dir.resolve("absent.yaml")
                + " does not exist");
        assertThat(error(yaml("http:\n  port: [1, 2\n"), Map.of())).startsWith("sluice.yaml:3:1: not valid YAML: ");
        assertThat(error(yaml("- just\n- a list\n"), Map.of())).isEqualTo("sluice.yaml:1:1: the configuration must be a map of keys to values");
        assertThat(error(yaml("kafka:\n  topics: [a, b]\n"), Map.of(), "--kafka.bootstrap-servers=h:1"))
                .isEqualTo("kafka.topics: 'a,b' is not a list of topic=format (bad entry 'a') (sluice.yaml line 2)");
    }

    @Test
    void flagsMustBeKeyEqualsValue() {
        assertThat(error("--http.port")).isEqualTo("flag --http.port has no value: write --http.port=VALUE");
        assertThat(error("stray")).isEqualTo("unexpected argument 'stray': configuration flags look like --key=value");
    }

    @Test
    void storeApiIsOffByDefaultAndTakesExternalLabelsAsFlagOrYamlMap() throws Exception {
        assertThat(ConfigLoader.load(null, Map.of(), REQUIRED).storeApi().enabled()).isFalse();
        SluiceConfig flags = ConfigLoader.load(null, Map.of(), List.of("--kafka.bootstrap-servers=h:1",
                "--kafka.topics=t=sluice", "--store.grpc.port=10901", "--store.external-labels=replica=a, cluster=eu1"));
        assertThat(flags.storeApi().port()).isEqualTo(10901);
        assertThat(flags.storeApi().host()).isEqualTo("0.0.0.0");
        assertThat(flags.storeApi().maxMessageBytes()).isEqualTo(16 << 20);
        assertThat(flags.storeApi().externalLabels()).containsExactly(Map.entry("cluster", "eu1"), Map.entry("replica", "a"));
        SluiceConfig file = ConfigLoader.load(yaml("""
                kafka: {bootstrap-servers: "k:9092", topics: {a: sluice}}
                store:
                  grpc: {port: 0, host: 127.0.0.1}
                  external-labels: {cluster: eu1, sluice_instance: b}
                """), Map.of(), List.of());
        assertThat(file.storeApi().port()).isZero();
        assertThat(file.storeApi().externalLabels()).containsEntry("sluice_instance", "b").hasSize(2);
    }

    @Test
    void storeApiErrorsAreOneLine() {
        assertThat(error("--store.external-labels=cluster")).isEqualTo("store.external-labels: 'cluster' is not a list "
                + "of distinct name=value with non-empty values (bad entry 'cluster') (flag --store.external-labels)");
        assertThat(error("--store.grpc.port=70000")).contains("store.grpc.port").contains("0..65535");
        assertThat(error("--store.grpc.tls-cert-file=/c.pem")).contains("needs store.grpc.tls-key-file as well");
    }
}
