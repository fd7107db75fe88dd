package io.sluice.promql.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RegexLimitsTest {
    @Test
    void countedRepetitionsAreExpandedAsWrittenOut() {
        assertThat(RegexLimits.expansion("abc|de.*")).isZero();
        assertThat(RegexLimits.expansion("a{3}")).isEqualTo(2);
        assertThat(RegexLimits.expansion("[a-z]{1000}")).isEqualTo(999);
        assertThat(RegexLimits.expansion("(.*){1000}")).isEqualTo(1998);
        assertThat(RegexLimits.expansion("((.*){30}){30}")).isEqualTo(1798);
        assertThat(RegexLimits.expansion("(.{1000}){1000}")).isEqualTo(999_999);
        assertThat(RegexLimits.expansion("(?i)(?P<x>ab){2,5}?")).isEqualTo(8);
        assertThat(RegexLimits.expansion("\\d{1,3}(\\.\\d{1,3}){3}")).isEqualTo(2 + (3 * 4 - 2));
        assertThat(RegexLimits.expansion("[{]{2}a{x}\\{3}")).isEqualTo(1); // literal braces are atoms
        assertThat(RegexLimits.expansion("((((a{1000}){1000}){1000}){1000})")).isEqualTo(Integer.MAX_VALUE - 1);
    }

    @Test
    void tooLongOrTooComplexRegexesAreRefused() {
        RegexLimits.check("job", "[a-z]{1000}");
        RegexLimits.check("job", "a".repeat(RegexLimits.MAX_LENGTH));
        assertThatThrownBy(() -> RegexLimits.check("job", "a".repeat(100_000)))
                .isInstanceOf(RegexLimits.TooComplexException.class)
                .hasMessage("regex for label job too long: 100000 characters, at most 16384");
        assertThatThrownBy(() -> RegexLimits.check("job", "(.*){1000}"))
                .hasMessage("regex for label job too complex: its counted repetitions "
                        + "({n}, {n,m}) expand it by 1998 elements, at most 1000");
        assertThatThrownBy(() -> io.sluice.promql.parse.Parser.parse("up{job=~\"(.*){1000}\"}"))
                .hasMessageContaining("parse error: regex for label job too complex");
    }
}
