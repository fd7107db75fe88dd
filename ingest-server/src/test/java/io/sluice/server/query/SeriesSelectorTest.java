package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.parse.Parser;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Selectors as the query API reads them (the PromQL parser: {@code match[]} and range selectors), PromQL
 * strings and durations, and the API's time and duration parameters.
 */
class SeriesSelectorTest {
    private static String parsed(String query) throws ApiError {
        return Arrays.toString(QueryRequests.seriesSelector(query, ""));
    }

    private static List<LabelMatcher> matchers(String query) {
        return Parser.parseSeriesSelector(query);
    }

    private static long rangeMs(String query) {
        return ((Expr.MatrixSelector) Parser.parse(query)).rangeMs();
    }

    @Test
    void vectorSelectors() throws ApiError {
        assertThat(parsed("up")).isEqualTo("[__name__=\"up\"]");
        assertThat(parsed(" node:cpu:rate5m { job = \"a\" , i!=\"\", r=~'x.*' , n!~`y|z`, } ")).isEqualTo(
                "[job=\"a\", i!=\"\", r=~\"x.*\", n!~\"y|z\", __name__=\"node:cpu:rate5m\"]");
        assertThat(parsed("{__name__=\"x\"}")).isEqualTo("[__name__=\"x\"]");
        assertThat(parsed("{\"my.metric\", \"a.b\"=\"c\"}")).isEqualTo("[__name__=\"my.metric\", a.b=\"c\"]");
        assertThat(parsed("up # a comment\n")).isEqualTo("[__name__=\"up\"]");
    }

    @Test
    void stringEscapesFollowPromQl() throws ApiError {
        assertThat(matchers("x{a=\"\\\"q\\\" \\\\ \\n\\t \\x41 \\101 \\u00e9 \\U0001F600 \\xc3\\xa9\"}")
                .stream().filter(m -> m.name().equals("a")).findFirst().orElseThrow().value()).isEqualTo("\"q\" \\ \n\t A A é 😀 é");
        assertThat(matchers("x{a='it\\'s'}").stream().filter(m -> m.name().equals("a")).findFirst().orElseThrow().value()).isEqualTo("it's");
        assertThat(matchers("x{a=`raw \\n \"`}").stream().filter(m -> m.name().equals("a")).findFirst().orElseThrow().value()).isEqualTo("raw \\n \"");
        assertThat(matchers("x{a=\"ü✓\"}").stream().filter(m -> m.name().equals("a")).findFirst().orElseThrow().value()).isEqualTo("ü✓");
        assertThatThrownBy(() -> matchers("x{a=\"\\'\"}")).hasMessageContaining("unknown escape sequence");
        assertThatThrownBy(() -> matchers("x{a='\\\"'}")).hasMessageContaining("unknown escape sequence");
        // Prometheus' parser takes Go's escapes byte for byte (\xff is accepted, as its engine accepts it).
        assertThatThrownBy(() -> matchers("x{a=\"\\ud800\"}")).hasMessageContaining("invalid Unicode");
    }

    @Test
    void rangesTakePrometheusDurations() throws ApiError {
        assertThat(rangeMs("x[5m]")).isEqualTo(300_000);
        assertThat(rangeMs("x[1h30m]")).isEqualTo(5_400_000);
        assertThat(rangeMs("x{a=\"b\"} [ 1y2w3d4h5m6s7ms ]"))
                .isEqualTo(((((365L + 14 + 3) * 24 + 4) * 60 + 5) * 60 + 6) * 1000 + 7);
        assertThat(rangeMs("x[250ms]")).isEqualTo(250);
        assertThatThrownBy(() -> rangeMs("x[30m1h]")).hasMessageContaining("parse error: not a valid duration string");
        assertThatThrownBy(() -> rangeMs("x[]")).hasMessageContaining("1:3: parse error: unexpected \"]\" in subquery or range selector");
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
        assertThat(PromTime.parseDurationParamMs("15", "")).isEqualTo(15_000);
        assertThat(PromTime.parseDurationParamMs("0.25", "")).isEqualTo(250);
        assertThat(PromTime.parseDurationParamMs("1m30s", "")).isEqualTo(90_000);
        assertThatThrownBy(() -> PromTime.parseDurationParamMs("1x", "")).hasMessageContaining("valid duration");
    }
}
