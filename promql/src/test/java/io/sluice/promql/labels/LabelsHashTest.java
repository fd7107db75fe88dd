package io.sluice.promql.labels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The hashes Prometheus v0.314.0 computes ({@code labels.FromStrings(...).Hash()} and
 * {@code float64(h) / float64(math.MaxUint64)}, printed by a Go program against the module), which
 * decide which series {@code limit_ratio} keeps.
 */
class LabelsHashTest {
    @Test
    void matchesPrometheusLabelsHash() {
        Labels requests = Labels.of("__name__", "http_requests", "job", "api-server", "instance", "0", "group", "production");
        assertThat(LabelsHash.hash(requests)).isEqualTo(1744331236799518182L);
        assertThat(LabelsHash.sampleOffset(requests)).isEqualTo(0.09456038582361823);
        assertThat(Long.toUnsignedString(LabelsHash.hash(Labels.of("a", "b")))).isEqualTo("16273691451497933585");
        assertThat(LabelsHash.sampleOffset(Labels.of("a", "b"))).isEqualTo(0.882198581303642);
        assertThat(Long.toUnsignedString(LabelsHash.hash(Labels.EMPTY))).isEqualTo("17241709254077376921");
    }

    @Test
    void multiByteCharactersAndLongValuesAsPrometheusEncodesThem() {
        // UTF-8 lengths, and a value of 300 bytes: its length takes 0xff and three bytes.
        Labels l = Labels.of("ü", "日本", "long", "\0".repeat(300));
        assertThat(Long.toUnsignedString(LabelsHash.hash(l))).isEqualTo("17616028973060820623");
        assertThat(LabelsHash.sampleOffset(l)).isEqualTo(0.9549668441580066);
    }

    @Test
    void unsignedConversionRoundsAsGo() {
        assertThat(LabelsHash.unsignedToDouble(-1L)).isEqualTo(0x1.0p64);
        assertThat(LabelsHash.unsignedToDouble(Long.MIN_VALUE)).isEqualTo(0x1.0p63);
        // Doubles near 2^63 are 2048 apart: to nearest, ties to even.
        assertThat(LabelsHash.unsignedToDouble(Long.MIN_VALUE + 1023)).isEqualTo(0x1.0p63);
        assertThat(LabelsHash.unsignedToDouble(Long.MIN_VALUE + 1024)).isEqualTo(0x1.0p63);
        assertThat(LabelsHash.unsignedToDouble(Long.MIN_VALUE + 1025)).isEqualTo(0x1.0p63 + 2048);
        assertThat(LabelsHash.unsignedToDouble(Long.MIN_VALUE + 3072)).isEqualTo(0x1.0p63 + 4096);
        assertThat(LabelsHash.unsignedToDouble(42)).isEqualTo(42.0);
    }
}
