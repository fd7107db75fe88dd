package io.sluice.core.index;

import static io.sluice.core.index.Matcher.eq;
import static io.sluice.core.index.Matcher.neq;
import static io.sluice.core.index.Matcher.nre;
import static io.sluice.core.index.Matcher.re;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Table-driven selection with Prometheus' semantics, on the series of Prometheus'
 * TestPostingsForMatchers plus a few more ({@code i="abc"}, a long value for the pathological regex).
 */
class SelectorTest {
    private static final String LONG_A = "a".repeat(60_000);
    private static final List<Map<String, String>> SERIES = List.of(
            labels("n", "1"),
            labels("n", "1", "i", "a"),
            labels("n", "1", "i", "b"),
            labels("n", "1", "i", "\n"),
            labels("n", "2"),
            labels("n", "2.5"),
            labels("n", "3", "i", "abc"),
            labels("n", "4", "i", LONG_A));

    private static final String N1 = "{n=1}";
    private static final String N1A = "{n=1, i=a}";
    private static final String N1B = "{n=1, i=b}";
    private static final String N1NL = "{n=1, i=\n}";
    private static final String N2 = "{n=2}";
    private static final String N25 = "{n=2.5}";
    private static final String N3 = "{n=3, i=abc}";
    private static final String N4 = "{n=4, i=" + LONG_A + "}";
    private static final String[] ALL = {N1, N1A, N1B, N1NL, N2, N25, N3, N4};

    private final IndexFixture index = new IndexFixture();

    SelectorTest() {
        SERIES.forEach(index::add);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row(List.of(eq("n", "1")), N1, N1A, N1B, N1NL),
                row(List.of(eq("n", "1"), eq("i", "a")), N1A),
                row(List.of(eq("n", "1"), eq("i", "missing"))),
                row(List.of(eq("missing", "x"))),
                row(List.of(neq("n", "1")), N2, N25, N3, N4),
                row(List.of(neq("i", "")), N1A, N1B, N1NL, N3, N4),
                row(List.of(neq("i", "a")), N1, N1B, N1NL, N2, N25, N3, N4),
                row(List.of(eq("n", "1"), neq("i", "")), N1A, N1B, N1NL),
                row(List.of(eq("n", "1"), neq("i", "a")), N1, N1B, N1NL),
                // Empty-value rules: a matcher that matches "" also matches series without the label.
                row(List.of(eq("foo", "")), ALL),
                row(List.of(neq("foo", "bar")), ALL),
                row(List.of(re("foo", ".*")), ALL),
                row(List.of(re("foo", "|x")), ALL),
                row(List.of(eq("i", "")), N1, N2, N25),
                row(List.of(re("i", "|a")), N1, N1A, N2, N25),
                row(List.of(eq("n", "1"), re("i", "^$")), N1),
                row(List.of(eq("n", "1"), re("i", "^.*$")), N1, N1A, N1B, N1NL),
                row(List.of(eq("n", "1"), re("i", "^.+$")), N1A, N1B, N1NL),
                row(List.of(eq("n", "1"), nre("i", "^.*$"))),
                row(List.of(eq("n", "1"), nre("i", "")), N1A, N1B, N1NL),
                row(List.of(eq("n", "1"), nre("i", "a")), N1, N1B, N1NL),
                row(List.of(eq("n", "1"), nre("i", "a|b")), N1, N1NL),
                row(List.of(eq("n", "1"), nre("i", "(a|b)")), N1, N1NL),
                row(List.of(nre("n", "1|2.*")), N3, N4),
                row(List.of(re("i", ".+"), neq("i", "a")), N1B, N1NL, N3, N4),
                row(List.of(re("i", "."), neq("i", "b")), N1A, N1NL),
                // Literal alternations and their escaped metacharacters.
                row(List.of(re("i", "a|b")), N1A, N1B),
                row(List.of(re("n", "1|2")), N1, N1A, N1B, N1NL, N2),
                row(List.of(re("n", "2\\.5|3")), N25, N3),
                row(List.of(re("n", "2.5|zzz")), N25),
                // Full anchoring: "a" is not "abc", "2" is not "2.5".
                row(List.of(re("i", "a")), N1A),
                row(List.of(re("n", "2")), N2),
                row(List.of(re("n", "2.*")), N2, N25),
                row(List.of(re("i", "ab")), new String[0]),
                // RE2 syntax: classes, Unicode, case folding; . matches a newline (?s).
                row(List.of(re("n", "\\d")), N1, N1A, N1B, N1NL, N2, N3, N4),
                row(List.of(re("n", "\\p{N}\\.\\p{N}")), N25),
                row(List.of(re("i", "(?i)ABC")), N3),
                row(List.of(re("i", "[[:alpha:]]{3}")), N3),
                row(List.of(eq("n", "1"), re("i", "\\n")), N1NL),
                // Linear time: (a*)*b on 60,000 a's is a non-match that simply returns.
                row(List.of(re("i", "(a*)*b")), N1B),
                row(List.of(re("i", "(a*)*")), N1, N1A, N2, N25, N4),
                row(List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void selectsLikePrometheus(String selector, List<Matcher> matchers, String[] expected) {
        assertThat(index.select(matchers.toArray(Matcher[]::new))).as(selector)
                .containsExactlyInAnyOrderElementsOf(Arrays.asList(expected));
    }

    /** The same table against a brute-force filter: every series, every matcher, labels absent = "". */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void agreesWithMatchingEverySeriesDirectly(String selector, List<Matcher> matchers, String[] expected) {
        TreeSet<String> direct = SERIES.stream()
                .filter(s -> !matchers.isEmpty() && matchers.stream().allMatch(m -> m.matches(s.getOrDefault(m.name(), ""))))
                .map(Map::toString).collect(Collectors.toCollection(TreeSet::new));
        assertThat(index.select(matchers.toArray(Matcher[]::new))).as(selector).isEqualTo(direct);
    }

    @Test
    void labelNamesAndValuesAreInByteOrder() {
        assertThat(index.selector.labelNames()).containsExactly("i", "n");
        assertThat(index.selector.labelValues("n")).containsExactly("1", "2", "2.5", "3", "4");
        assertThat(index.selector.labelValues("i")).containsExactly("\n", "a", LONG_A, "abc", "b");
        assertThat(index.selector.labelValues("missing")).isEmpty();
        index.add(labels("n", "\uD83D\uDE00"));
        index.add(labels("n", "\uFF61"));
        assertThat(index.selector.labelValues("n")).endsWith("\uFF61", "\uD83D\uDE00");
    }

    @Test
    void evictedSeriesLeaveTheIndex() {
        index.remove(1); // {n=1, i=a}
        assertThat(index.select(re("i", ".+"))).containsExactlyInAnyOrder(N1B, N1NL, N3, N4);
        assertThat(index.selector.labelValues("i")).doesNotContain("a");
        assertThat(index.select(eq("i", "a"))).isEmpty();
        assertThat(index.select(neq("i", "b"))).doesNotContain(N1A).contains(N1);
    }

    private static Arguments row(List<Matcher> matchers, String... expected) {
        String selector = matchers.stream().map(Matcher::toString).collect(Collectors.joining(", ", "{", "}"));
        return Arguments.of(selector.replace("\n", "\\n").replace(LONG_A, "a*60000"), matchers, expected);
    }

    private static Map<String, String> labels(String... nameValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            m.put(nameValues[i], nameValues[i + 1]);
        }
        return m;
    }
}
