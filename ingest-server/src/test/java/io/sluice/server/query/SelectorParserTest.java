package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The PromQL subset: vector and range selectors, PromQL strings, durations. */
class SelectorParserTest {
    private static String parsed(String query) throws ApiError {
        Selection s = SelectorParser.parse(query);
        return s.matchers() + (s.isRange() ? "[" + s.rangeMs() + "]" : "");
    }

    @Test
    void vectorSelectors() throws ApiError {
        assertThat(parsed("up")).isEqualTo("[__name__=\"up\"]");
        assertThat(parsed(" node:cpu:rate5m { job = \"a\" , i!=\"\", r=~'x.*' , n!~`y|z`, } ")).isEqualTo(
                "[__name__=\"node:cpu:rate5m\", job=\"a\", i!=\"\", r=~\"x.*\", n!~\"y|z\"]");
        assertThat(parsed("{__name__=\"x\"}")).isEqualTo("[__name__=\"x\"]");
        assertThat(parsed("{\"my.metric\", \"a.b\"=\"c\"}")).isEqualTo("[__name__=\"my.metric\", a.b=\"c\"]");
        assertThat(parsed("up # a comment\n")).isEqualTo("[__name__=\"up\"]");
    }

    @Test
    void stringEscapesFollowPromQl() throws ApiError {
        assertThat(SelectorParser.parse("x{a=\"\\\"q\\\" \\\\ \\n\\t \\x41 \\101 \\u00e9 \\U0001F600 \\xc3\\xa9\"}").matchers()
                .get(1).value()).isEqualTo("\"q\" \\ \n\t A A é 😀 é");
        assertThat(SelectorParser.parse("x{a='it\\'s'}").matchers().get(1).value()).isEqualTo("it's");
        assertThat(SelectorParser.parse("x{a=`raw \\n \"`}").matchers().get(1).value()).isEqualTo("raw \\n \"");
        assertThat(SelectorParser.parse("x{a=\"ü✓\"}").matchers().get(1).value()).isEqualTo("ü✓");
        assertThatThrownBy(() -> SelectorParser.parse("x{a=\"\\'\"}")).hasMessageContaining("unknown escape sequence");
        assertThatThrownBy(() -> SelectorParser.parse("x{a='\\\"'}")).hasMessageContaining("unknown escape sequence");
        assertThatThrownBy(() -> SelectorParser.parse("x{a=\"\\xff\"}")).hasMessageContaining("invalid UTF-8");
        assertThatThrownBy(() -> SelectorParser.parse("x{a=\"\\ud800\"}")).hasMessageContaining("invalid Unicode");
    }

    @Test
    void rangesTakePrometheusDurations() throws ApiError {
        assertThat(SelectorParser.parse("x[5m]").rangeMs()).isEqualTo(300_000);
        assertThat(SelectorParser.parse("x[1h30m]").rangeMs()).isEqualTo(5_400_000);
        assertThat(SelectorParser.parse("x{a=\"b\"} [ 1y2w3d4h5m6s7ms ]").rangeMs())
                .isEqualTo(((((365L + 14 + 3) * 24 + 4) * 60 + 5) * 60 + 6) * 1000 + 7);
        assertThat(SelectorParser.parse("x[250ms]").rangeMs()).isEqualTo(250);
        assertThatThrownBy(() -> SelectorParser.parse("x[30m1h]")).hasMessageContaining("bad duration");
        assertThatThrownBy(() -> SelectorParser.parse("x[]")).hasMessageContaining("bad duration");
    }

    @Test
    void timesAndDurationParameters() throws ApiError {
        assertThat(PromTime.parseTimeMs("1700000000.1234", "t")).isEqualTo(1_700_000_000_123L);
        assertThat(PromTime.parseTimeMs("1.0006", "t")).isEqualTo(1_001);
        assertThat(PromTime.parseTimeMs("-1.5", "t")).isEqualTo(-1_500);
        assertThat(PromTime.parseTimeMs("2023-11-14T22:13:20.123456Z", "t")).isEqualTo(1_700_000_000_123L);
        assertThat(PromTime.parseTimeMs("2023-11-14T23:13:20+01:00", "t")).isEqualTo(1_700_000_000_000L);
        assertThatThrownBy(() -> PromTime.parseTimeMs("NaN", "t")).hasMessageContaining("cannot parse \"NaN\"");
        assertThatThrownBy(() -> PromTime.parseTimeMs("1e300", "t")).hasMessageContaining("valid timestamp");
        assertThat(PromTime.parseDurationParamMs("15", "step")).isEqualTo(15_000);
        assertThat(PromTime.parseDurationParamMs("0.25", "step")).isEqualTo(250);
        assertThat(PromTime.parseDurationParamMs("1m30s", "step")).isEqualTo(90_000);
        assertThatThrownBy(() -> PromTime.parseDurationParamMs("1x", "step")).hasMessageContaining("valid duration");
    }
}
