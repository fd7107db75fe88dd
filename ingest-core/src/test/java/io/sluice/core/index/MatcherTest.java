package io.sluice.core.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
    void recognisesPrefixSuffixAndSubstringRegexes() {
        for (String regex : List.of("i-1.*", ".*-1", ".*i-1.*", ".*.*", "a\\..*", ".*a\\|b")) {
            assertThat(Matcher.re("a", regex).shape()).as(regex).isEqualTo(Matcher.Shape.AFFIX);
        }
        for (String regex : List.of("a\\.*", "a.*?", ".*?a", "a|b.*", ".*a|b", "a.+", ".+a", "a.*b", "a\\\\.*x")) {
            assertThat(Matcher.re("a", regex).shape()).as(regex).isNotEqualTo(Matcher.Shape.AFFIX);
        }
        assertThat(Matcher.re("a", "i-1.*").matches("i-10")).isTrue();
        assertThat(Matcher.re("a", "i-1.*").matches("xi-10")).isFalse();
        assertThat(Matcher.re("a", "a\\..*").matches("abc")).isFalse();
        assertThat(Matcher.re("a", "a\\..*").matches("a.\nc")).isTrue();
        assertThat(Matcher.nre("a", ".*b.*").matches("abc")).isFalse();
    }

    /** The shortcuts (literal sets, affixes, any, non-empty) answer exactly as the regex itself, on random patterns and values. */
    @Test
    void shortcutsAgreeWithTheRegexOnRandomPatternsAndValues() {
        SplittableRandom random = new SplittableRandom(20261127);
        String[] pieces = {"a", "b", "-", "1", "é", "\\n", "\n", ".", "\\.", ".*", ".+", "*", "?", "|", "\\|", "\\\\", "\\*",
            "(", ")", "[ab]", "^", "$", "\\d", "x{2}", ".*?", "€"};
        String[] valuePieces = {"a", "b", "-", "1", "é", ".", "|", "\\", "*", "\n", "", "€", "ab", "aa"};
        int shortcuts = 0;
        int checked = 0;
        while (checked < 20_000) {
            StringBuilder regex = new StringBuilder();
            for (int i = random.nextInt(6); i >= 0; i--) {
                regex.append(pieces[random.nextInt(pieces.length)]);
            }
            Matcher m;
            try {
                m = Matcher.re("a", regex.toString());
            } catch (IllegalArgumentException invalid) {
                continue;
            }
            checked++;
            shortcuts += m.shape() == Matcher.Shape.REGEX ? 0 : 1;
            List<String> values = new ArrayList<>();
            values.add("");
            values.add(regex.toString());
            values.addAll(m.literals());
            for (int v = 0; v < 20; v++) {
                StringBuilder value = new StringBuilder();
                for (int i = random.nextInt(7); i > 0; i--) {
                    value.append(valuePieces[random.nextInt(valuePieces.length)]);
                }
                values.add(value.toString());
            }
            for (String v : values) {
                assertThat(m.positiveMatches(v)).as("%s on \"%s\" (%s)", regex, v, m.shape()).isEqualTo(m.regexMatches(v));
                assertThat(Matcher.nre("a", regex.toString()).matches(v)).isEqualTo(!m.regexMatches(v));
            }
        }
        assertThat(shortcuts).as("patterns that took a shortcut").isGreaterThan(2_000);
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
