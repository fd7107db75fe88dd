package io.sluice.promql.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void parsesPrometheusDurations() {
        assertThat(Durations.parse("0")).isZero();
        assertThat(Durations.parse("0s")).isZero();
        assertThat(Durations.parse("90s")).isEqualTo(90_000);
        assertThat(Durations.parse("1h30m")).isEqualTo(5_400_000);
        assertThat(Durations.parse("1m30s500ms")).isEqualTo(90_500);
        assertThat(Durations.parse("1d")).isEqualTo(86_400_000);
        assertThat(Durations.parse("1w")).isEqualTo(7 * 86_400_000L);
        assertThat(Durations.parse("1y")).isEqualTo(365 * 86_400_000L);
        assertThat(Durations.parse("5ms")).isEqualTo(5);
    }

    @Test
    void rejectsWhatPrometheusRejects() {
        assertThatThrownBy(() -> Durations.parse("")).hasMessage("empty duration string");
        assertThatThrownBy(() -> Durations.parse("1s1m")).hasMessage("not a valid duration string: \"1s1m\"");
        assertThatThrownBy(() -> Durations.parse("1.5m")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> Durations.parse("-1m")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> Durations.parse("10")).isInstanceOf(ScriptException.class);
        assertThatThrownBy(() -> Durations.parse("3q")).hasMessage("unknown unit \"q\" in duration \"3q\"");
    }
}
