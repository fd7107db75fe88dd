package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConfigValuesTest {
    @Test
    void sizesInBinaryAndDecimalUnits() {
        assertThat(ConfigValues.parseBytes("128MiB")).isEqualTo(128L << 20);
        assertThat(ConfigValues.parseBytes("64KiB")).isEqualTo(64L << 10);
        assertThat(ConfigValues.parseBytes("1GiB")).isEqualTo(1L << 30);
        assertThat(ConfigValues.parseBytes("10MB")).isEqualTo(10_000_000L);
        assertThat(ConfigValues.parseBytes("4096")).isEqualTo(4096L);
        assertThat(ConfigValues.parseBytes("4096B")).isEqualTo(4096L);
        assertThat(ConfigValues.parseBytes(" 2 MiB ")).isEqualTo(2L << 20);
        assertThat(ConfigValues.parseBytes("2_000")).isEqualTo(2000L);
    }

    @Test
    void malformedSizesAreNull() {
        assertThat(ConfigValues.parseBytes("12XB")).isNull();
        assertThat(ConfigValues.parseBytes("MiB")).isNull();
        assertThat(ConfigValues.parseBytes("-1")).isNull();
        assertThat(ConfigValues.parseBytes("1.5MiB")).isNull();
        assertThat(ConfigValues.parseBytes("99999999999999999999")).isNull();
        assertThat(ConfigValues.parseBytes("9999999999TiB")).isNull(); // overflows a long
    }

    @Test
    void durationsWithUnitsOrBareMilliseconds() {
        assertThat(ConfigValues.parseDurationMs("100ms")).isEqualTo(100L);
        assertThat(ConfigValues.parseDurationMs("5s")).isEqualTo(5_000L);
        assertThat(ConfigValues.parseDurationMs("2m")).isEqualTo(120_000L);
        assertThat(ConfigValues.parseDurationMs("1h")).isEqualTo(3_600_000L);
        assertThat(ConfigValues.parseDurationMs("1d")).isEqualTo(86_400_000L);
        assertThat(ConfigValues.parseDurationMs("250")).isEqualTo(250L);
        assertThat(ConfigValues.parseDurationMs("5 S")).isEqualTo(5_000L);
        assertThat(ConfigValues.parseDurationMs("5x")).isNull();
        assertThat(ConfigValues.parseDurationMs("")).isNull();
    }

    @Test
    void formatsSizesForMessages() {
        assertThat(ConfigValues.formatBytes(128L << 20)).isEqualTo("128MiB");
        assertThat(ConfigValues.formatBytes(1 << 30)).isEqualTo("1GiB");
        assertThat(ConfigValues.formatBytes(1000)).isEqualTo("1000B");
    }
}
