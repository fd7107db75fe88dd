package io.sluice.promql.labels;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LabelsTest {
    @Test
    void sortedPairsBuildTheSameLabelsAsTheBuilder() {
        String[] pairs = {"__name__", "x", "instance", "i-1", "job", "j"};
        Labels sorted = Labels.ofSorted(pairs.clone());
        assertThat(sorted).isEqualTo(Labels.of(pairs)).hasSameHashCodeAs(Labels.of(pairs));
        assertThat(sorted.get("instance")).isEqualTo("i-1");
        assertThat(sorted.compareTo(Labels.of(pairs))).isZero();
        assertThat(Labels.ofSorted(new String[0])).isSameAs(Labels.EMPTY);
    }

    @Test
    void pairsNotInCanonicalFormFallBackToTheBuilder() {
        assertThat(Labels.ofSorted(new String[] {"job", "j", "a", "b"})).isEqualTo(Labels.of("a", "b", "job", "j"));
        assertThat(Labels.ofSorted(new String[] {"a", "1", "a", "2"})).isEqualTo(Labels.of("a", "2"));
        assertThat(Labels.ofSorted(new String[] {"a", "", "b", "2"})).isEqualTo(Labels.of("b", "2"));
        // UTF-8 byte order (a store's, and Go's) is the canonical order: the builder sorts names the same way.
        String[] byteOrder = {"b", "1", "\uFFFD", "3", "\uD83D\uDE00", "2"};
        assertThat(Labels.ofSorted(byteOrder.clone()).toString()).isEqualTo(Labels.of("\uD83D\uDE00", "2", "b", "1", "\uFFFD", "3").toString())
                .isEqualTo("{b=\"1\", \"\uFFFD\"=\"3\", \"\uD83D\uDE00\"=\"2\"}");
        assertThat(Labels.ofSorted(byteOrder.clone()).get("\uD83D\uDE00")).isEqualTo("2");
        assertThat(Labels.ofSorted(byteOrder.clone()).with("\uE000", "4").toString())
                .isEqualTo("{b=\"1\", \"\uE000\"=\"4\", \"\uFFFD\"=\"3\", \"\uD83D\uDE00\"=\"2\"}");
    }

    @Test
    void compareUtf8IsTheOrderOfTheUtf8Bytes() {
        Random rnd = new Random(8);
        int[] pool = {'a', 'z', 0x7F, 0xE4, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};
        for (int i = 0; i < 20_000; i++) {
            String a = randomString(rnd, pool);
            String b = randomString(rnd, pool);
            int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(UTF_8),
                    b.getBytes(UTF_8)));
            assertThat(Integer.signum(Labels.compareUtf8(a, b))).as("%s vs %s", a, b).isEqualTo(expected);
        }
        assertThat(Labels.compareUtf8("\uE000", "\uD83D\uDE00")).isNegative();
        assertThat("\uE000".compareTo("\uD83D\uDE00")).as("String order differs").isPositive();
        assertThat(Labels.of("v", "\uE000").compareTo(Labels.of("v", "\uD83D\uDE00"))).isNegative();
    }

    private static String randomString(Random rnd, int[] pool) {
        StringBuilder sb = new StringBuilder();
        for (int n = rnd.nextInt(4); n > 0; n--) {
            sb.appendCodePoint(pool[rnd.nextInt(pool.length)]);
        }
        return sb.toString();
    }

    @Test
    void withSetsReplacesOrDeletesOneLabelAsTheBuilderDoes() {
        Labels l = Labels.of("__name__", "x", "job", "j", "zone", "z");
        for (String[] change : new String[][] {
            {"a", "1"}, {"k", "2"}, {"zz", "3"}, {"job", "other"}, {"job", "j"}, {"job", ""}, {"missing", ""}, {"__name__", ""}}) {
            Labels expected = l.toBuilder().set(change[0], change[1]).build();
            assertThat(l.with(change[0], change[1])).as("with(%s, %s)", change[0], change[1])
                    .isEqualTo(expected).hasSameHashCodeAs(expected);
            assertThat(l.with(change[0], change[1]).toString()).isEqualTo(expected.toString());
        }
        assertThat(l.with("job", "j")).isSameAs(l);
        assertThat(Labels.of("a", "1").with("a", "")).isSameAs(Labels.EMPTY);
        assertThat(l.withoutMetadata()).isEqualTo(Labels.of("job", "j", "zone", "z"));
        assertThat(l).isEqualTo(Labels.of("__name__", "x", "job", "j", "zone", "z")); // unchanged
    }
}
