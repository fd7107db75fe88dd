package io.sluice.promql.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link FloatOps#natLess}, the natural order of Prometheus' {@code sort_by_label}, and {@link FloatOps#goSort}.
 * Cases whose answer is Prometheus' own are also in {@code promql/server_differences.test}, checked against its
 * engine; the rest follow from the rules in {@code natLess}'s documentation.
 */
class NaturalOrderTest {
    @Test
    void digitRunsCompareAsNumbersAndTextAsText() {
        assertThat(FloatOps.natLess("host-9", "host-10")).isTrue();
        assertThat(FloatOps.natLess("host-10", "host-9")).isFalse();
        assertThat(FloatOps.natLess("a", "b1")).isTrue();
        assertThat(FloatOps.natLess("1", "a")).as("a digit run against text compares as text").isTrue();
        assertThat(FloatOps.natLess("a1", "a1b")).as("a ends first").isTrue();
        assertThat(FloatOps.natLess("a1b", "a1")).isFalse();
        assertThat(FloatOps.natLess("007", "8")).isTrue();
        assertThat(FloatOps.natLess("x2y3", "x2y10")).isTrue();
    }

    @Test
    void theOrderIsNotTotalWhereGosIsNot() {
        assertThat(FloatOps.natLess("", "a")).as("the empty value precedes nothing").isFalse();
        assertThat(FloatOps.natLess("a", "")).as("and nothing precedes it").isFalse();
        assertThat(FloatOps.natLess("5", "05")).as("equal numbers: each precedes the other").isTrue();
        assertThat(FloatOps.natLess("05", "5")).isTrue();
        assertThat(FloatOps.natLess("a5b", "a05b")).isTrue();
        assertThat(FloatOps.natLess("a05b", "a5b")).isTrue();
    }

    @Test
    void numbersBeyondInt64CompareAsText() {
        String big = "10000000000000000000000"; // > 2^63 - 1: Go's Atoi fails, the runs compare as text
        assertThat(FloatOps.natLess(big, "9")).isTrue();
        assertThat(FloatOps.natLess("9", big)).isFalse();
        assertThat(FloatOps.natLess("9223372036854775806", "9223372036854775807")).isTrue();
    }

    @Test
    void textComparesByCodePointAsGoComparesUtf8Bytes() {
        String supplementary = new String(Character.toChars(0x1F600)); // UTF-16: a surrogate pair from 0xD83D
        assertThat(FloatOps.natLess("\uFF21", supplementary)).as("U+FF21 before U+1F600, though its char is larger").isTrue();
        assertThat(FloatOps.natLess(supplementary, "\uFF21")).isFalse();
    }

    @Test
    void upToTwelveElementsSortAsGoInsertionSortWithAnInconsistentComparison() {
        // Each comparison of "" with anything else says "after"; an insertion sort then moves nothing past it.
        Comparator<String> cmp = (a, b) -> a.equals(b) ? 0 : FloatOps.natLess(a, b) ? -1 : 1;
        List<String> values = new ArrayList<>(List.of("b", "", "a"));
        FloatOps.goSort(values, cmp);
        assertThat(values).containsExactly("b", "", "a");
        values = new ArrayList<>(List.of("c", "b", "", "05", "5"));
        FloatOps.goSort(values, cmp);
        assertThat(values).containsExactly("b", "c", "", "5", "05");
    }

    @Test
    void longerListsSortLikeAnyCorrectSortUnderATotalOrder() {
        Random rnd = new Random(7);
        for (int round = 0; round < 50; round++) {
            List<Integer> values = new ArrayList<>();
            for (int i = 0, n = rnd.nextInt(60); i < n; i++) {
                values.add(rnd.nextInt(30));
            }
            List<Integer> expected = new ArrayList<>(values);
            expected.sort(Comparator.naturalOrder());
            FloatOps.goSort(values, Comparator.naturalOrder());
            assertThat(values).isEqualTo(expected);
        }
    }

    @Test
    void longerListsSortWithAnInconsistentComparisonWithoutFailing() {
        Comparator<String> cmp = (a, b) -> a.equals(b) ? 0 : FloatOps.natLess(a, b) ? -1 : 1;
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            values.add(i % 3 == 0 ? "" : i % 3 == 1 ? String.valueOf(i % 17) : "0" + (i % 17));
        }
        List<String> before = new ArrayList<>(values);
        FloatOps.goSort(values, cmp);
        assertThat(values).containsExactlyInAnyOrderElementsOf(before);
    }
}
