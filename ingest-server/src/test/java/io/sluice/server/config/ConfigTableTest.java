package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** README.md's configuration table is generated from ConfigKey; this keeps the two equal. */
class ConfigTableTest {
    private static final String START = "<!-- config-table:start (generated from ConfigKey.markdownTable(); ConfigTableTest checks it) -->\n";
    private static final String END = "<!-- config-table:end -->";

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
        SluiceConfig config = ConfigLoader.load(null, java.util.Map.of(),
                java.util.List.of("--kafka.bootstrap-servers=h:1", "--kafka.topics=t=sluice"));
        assertThat(config).isNotNull();
    }
}
