package io.sluice.core.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MatcherTest {
    @Test
    void regexesAreFullyAnchoredAndDotMatchesNewline() {
        assertThat(Matcher.re("a", "b").matches("abc")).isFalse();
        assertThat(Matcher.re("a", "b.*").matches("bcd")).isTrue();
        assertThat(Matcher.re("a", "b|c").matches("bc")).isFalse();
        assertThat(Matcher.re("a", "x.y").matches("x\ny")).isTrue();
        assertThat(Matcher.re("a", "^b$").matches("b")).isTrue();
        assertThat(Matcher.nre("a", "b").matches("abc")).isTrue();
    }

    @Test
    void knowsWhetherItMatchesTheEmptyValue() {
        assertThat(Matcher.eq("a", "").matchesEmpty()).isTrue();
        assertThat(Matcher.eq("a", "x").matchesEmpty()).isFalse();
        assertThat(Matcher.neq("a", "x").matchesEmpty()).isTrue();
        assertThat(Matcher.neq("a", "").matchesEmpty()).isFalse();
        assertThat(Matcher.re("a", ".*").matchesEmpty()).isTrue();
        assertThat(Matcher.re("a", ".+").matchesEmpty()).isFalse();
        assertThat(Matcher.re("a", "|x").matchesEmpty()).isTrue();
        assertThat(Matcher.nre("a", ".*").matchesEmpty()).isFalse();
    }

    @Test
    void recognisesShapesThatNeedNoScan() {
        assertThat(Matcher.re("a", "x|y\\.z|").shape()).isEqualTo(Matcher.Shape.LITERALS);
        assertThat(Matcher.re("a", "x|y\\.z|").literals()).containsExactly("x", "y.z", "");
        assertThat(Matcher.re("a", "").literals()).containsExactly("");
        assertThat(Matcher.re("a", ".*").shape()).isEqualTo(Matcher.Shape.ANY);
        assertThat(Matcher.re("a", ".+").shape()).isEqualTo(Matcher.Shape.NON_EMPTY);
        for (String regex : List.of("x.", "\\d", "(x)", "x*", "[x]", "x{2}", "^x", "(?i)x")) {
            assertThat(Matcher.re("a", regex).shape()).as(regex).isEqualTo(Matcher.Shape.REGEX);
        }
        assertThat(Matcher.eq("a", "x|y").literals()).as("= is never a regex").containsExactly("x|y");
        assertThat(Matcher.re("a", "x|y").matches("x|y")).isFalse();
    }

    @Test
    void invalidRegexesAreRejectedWithTheLabel() {
        assertThatThrownBy(() -> Matcher.re("job", "a(")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job");
        assertThatThrownBy(() -> Matcher.re("job", "a)|(b")).as("not smuggled through the anchoring group")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Matcher.nre("job", "(?<name")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Matcher.re("job", "x\\")).hasMessageContaining("trailing backslash");
    }

    @Test
    void printsAsPromQl() {
        assertThat(Matcher.re("job", "a\"b").toString()).isEqualTo("job=~\"a\\\"b\"");
        assertThat(Matcher.neq("job", "x").toString()).isEqualTo("job!=\"x\"");
    }
}
