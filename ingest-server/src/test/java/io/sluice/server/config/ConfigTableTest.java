package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.HeadOptions;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's configuration table is generated from ConfigKey, and ConfigKey's text from the code it
 * describes; this keeps README, table and code in agreement.
 */
class ConfigTableTest {
    private static final String START = "<!-- config-table:start (generated from ConfigKey.markdownTable(); ConfigTableTest checks it) -->\n";
    private static final String END = "<!-- config-table:end -->";
    private static final List<String> REQUIRED = List.of("--kafka.bootstrap-servers=h:1", "--kafka.topics=t=sluice");

    @Test
    void readmeHoldsTheGeneratedTable() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf(START);
        int end = readme.indexOf(END);
        assertThat(start).as("README.md has the marker " + START.strip()).isNotNegative();
        assertThat(readme.substring(start + START.length(), end))
                .as("README.md's configuration table; replace it with ConfigKey.markdownTable()")
                .isEqualTo(ConfigKey.markdownTable());
    }

    @Test
    void everyDefaultIsAValidValue() throws ConfigException {
        // Loading with only the required keys set parses every default.
        SluiceConfig config = ConfigLoader.load(null, Map.of(), REQUIRED);
        assertThat(config).isNotNull();
    }

    /** The defaults the table shows, parsed as a user's values would be, are the code's own defaults. */
    @Test
    void theTablesDefaultsAreTheCodesDefaults() throws ConfigException {
        SluiceConfig config = ConfigLoader.load(null, Map.of(), REQUIRED);
        assertThat(config.head()).isEqualTo(HeadOptions.defaults(Path.of(ConfigKey.DATA_DIR.defaultValue())));
        assertThat(config.labelLimits()).isEqualTo(LabelLimits.DEFAULT);
        assertThat(config.decoderLimits()).isEqualTo(DecoderLimits.DEFAULTS);
        assertThat(config.query()).isEqualTo(QueryOptions.DEFAULTS);
        KafkaSettings kafka = config.kafka();
        assertThat(kafka.groupId()).isEqualTo(KafkaSettings.DEFAULT_GROUP_ID);
        assertThat(kafka.consumerThreads()).isEqualTo(KafkaSettings.DEFAULT_CONSUMER_THREADS);
        assertThat(kafka.commitIntervalMs()).isEqualTo(KafkaSettings.DEFAULT_COMMIT_INTERVAL_MS);
        assertThat(kafka.pollTimeoutMs()).isEqualTo(KafkaSettings.DEFAULT_POLL_TIMEOUT_MS);
        assertThat(kafka.sessionTimeoutMs()).isEqualTo(KafkaSettings.DEFAULT_SESSION_TIMEOUT_MS);
        assertThat(kafka.groupProtocol()).isEqualTo(KafkaSettings.GroupProtocol.CLASSIC);
        assertThat(config.httpThreads()).isEqualTo(HttpOptions.defaultThreads());
        for (ConfigKey key : ConfigKey.values()) {
            if (key.defaultValue() != null && !key.defaultValue().isEmpty()) {
                assertThat(ConfigKey.markdownTable()).as("the table shows %s's default", key.key())
                        .contains("| `" + key.key() + "` | `" + key.defaultValue() + "` |");
            }
        }
    }

    @Test
    void theTableNamesEveryPayloadFormat() {
        for (PayloadFormat format : PayloadFormat.values()) {
            assertThat(ConfigKey.KAFKA_TOPICS.meaning()).contains("`" + format.configName() + "`");
        }
    }

    @Test
    void durationsAndSizesAreShownInTheirLargestExactUnit() {
        assertThat(ConfigValues.formatDurationMs(100)).isEqualTo("100ms");
        assertThat(ConfigValues.formatDurationMs(300_000)).isEqualTo("5m");
        assertThat(ConfigValues.formatDurationMs(90_000)).isEqualTo("90s");
        assertThat(ConfigValues.formatDurationMs(15 * 86_400_000L)).isEqualTo("15d");
        assertThat(ConfigValues.formatDurationMs(0)).isEqualTo("0ms");
        assertThat(ConfigValues.formatBytes(256 << 10)).isEqualTo("256KiB");
        assertThat(ConfigValues.formatBytes(1000)).isEqualTo("1000B");
        for (long ms : new long[] {0, 1, 999, 1_000, 61_000, 3_600_000, 86_400_000, 36 * 3_600_000L}) {
            assertThat(ConfigValues.parseDurationMs(ConfigValues.formatDurationMs(ms))).isEqualTo(ms);
        }
    }
}
