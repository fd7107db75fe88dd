package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The differential test's comparison of two HTTP answers, on hand-written answers. */
class ResultComparisonTest {
    private static String vector(String... series) {
        return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + String.join(",", series) + "]}}";
    }

    private static String sample(String label, String count) {
        return "{\"metric\":{\"job\":\"" + label + "\"},\"value\":[1000,\"" + count + "\"]}";
    }

    @Test
    void countValuesLabelsThatRoundAlikeAreMatchedByRankNotByAnswerOrder() {
        String q = "count_values(\"job\", x)";
        String a = vector(sample("1.333333333333333", "2"), sample("1.3333333333333335", "1"));
        String b = vector(sample("1.3333333333333335", "1"), sample("1.333333333333333", "2"));
        assertThat(ResultComparison.diff(q, true, 200, a, 200, b)).isNull();
    }

    @Test
    void countValuesLabelsThatDifferInTheLastBitStillCompareEqual() {
        String q = "count_values(\"job\", x)";
        String a = vector(sample("1.3333333333333333", "3"));
        String b = vector(sample("1.3333333333333335", "3"));
        assertThat(ResultComparison.diff(q, true, 200, a, 200, b)).isNull();
    }

    @Test
    void differentCountsUnderLabelsThatRoundAlikeAreADifference() {
        String q = "count_values(\"job\", x)";
        String a = vector(sample("1.333333333333333", "2"), sample("1.3333333333333335", "1"));
        String b = vector(sample("1.333333333333333", "1"), sample("1.3333333333333335", "2"));
        assertThat(ResultComparison.diff(q, true, 200, a, 200, b)).isNotNull();
    }
}
