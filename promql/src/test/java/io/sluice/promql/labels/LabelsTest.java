package io.sluice.promql.labels;

import static org.assertj.core.api.Assertions.assertThat;

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
        // UTF-8 byte order (a store's) is not String order past the surrogates: still the same labels.
        assertThat(Labels.ofSorted(new String[] {"b", "1", "\uFFFD", "3", "\uD83D\uDE00", "2"}).toString())
                .isEqualTo(Labels.of("b", "1", "\uD83D\uDE00", "2", "\uFFFD", "3").toString());
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
