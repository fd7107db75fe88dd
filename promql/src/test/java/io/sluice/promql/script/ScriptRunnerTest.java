package io.sluice.promql.script;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.Annotation;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScriptRunnerTest {
    private static final String DATA = """
            load 1m
              m{i="a"} 0+10x10
              m{i="b"} 1 2 stale _ 5
              n NaN NaN
            """;

    private static List<ScriptRunner.Outcome> run(FakeEngine engine, String script) {
        return new ScriptRunner(engine).run(Script.parse("t.test", script));
    }

    private static ScriptRunner.Outcome one(FakeEngine engine, String script) {
        List<ScriptRunner.Outcome> out = run(engine, DATA + "\n" + script);
        assertThat(out).hasSize(1);
        return out.getFirst();
    }

    @Test
    void instantEvalPassesAndFails() {
        FakeEngine e = new FakeEngine();
        assertThat(one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        ScriptRunner.Outcome wrong = one(e, "eval instant at 1m m\n  m{i=\"a\"} 11\n  m{i=\"b\"} 2\n");
        assertThat(wrong.status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(wrong.message()).isEqualTo("expected 11 for m{i=\"a\"} but got 10");
        assertThat(wrong.line()).isEqualTo(6);
        assertThat(one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n").message()).startsWith("unexpected metric m{i=\"b\"} in result");
        assertThat(one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n  m{i=\"c\"} 2\n").message())
                .startsWith("expected metric m{i=\"c\"} with [2] not found");
    }

    @Test
    void stalenessMarkerEndsTheSeries() {
        FakeEngine e = new FakeEngine();
        assertThat(one(e, "eval instant at 3m m\n  m{i=\"a\"} 30\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
    }

    @Test
    void valuesCompareAlmostEqualAndNanEqualsNan() {
        FakeEngine e = new FakeEngine();
        e.instantMap = v -> v * (1 + 1e-7);
        assertThat(one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        e.instantMap = v -> v * (1 + 1e-5);
        assertThat(one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n").status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(new FakeEngine(), "eval instant at 1m n\n  n NaN\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        // "_" as an instant value compares as 0
        assertThat(one(new FakeEngine(), "eval instant at 0 m\n  m{i=\"a\"} _\n  m{i=\"b\"} 1\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(ScriptRunner.almostEqual(Double.NaN, Double.longBitsToDouble(0x7ff0000000000002L))).isFalse();
        assertThat(ScriptRunner.almostEqual(0, 1e-320)).isTrue();
        assertThat(ScriptRunner.almostEqual(0, 1e-6)).isFalse();
        assertThat(ScriptRunner.almostEqual(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY)).isTrue();
    }

    @Test
    void instantEvalIsCheckedInRangeModeToo() {
        FakeEngine e = new FakeEngine();
        e.rangeSkew = 1;
        ScriptRunner.Outcome o = one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n");
        assertThat(o.status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(o.message()).startsWith("range mode: expected 10 for m{i=\"a\"} but got 11");
        // ordered evals are not compared in range mode (only evaluated)
        assertThat(one(e, "eval instant at 1m m\n  expect ordered\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n").status())
                .isEqualTo(ScriptRunner.Status.PASSED);
    }

    @Test
    void rangeEvalWithOmittedSteps() {
        FakeEngine e = new FakeEngine();
        assertThat(one(e, "eval range from 0 to 4m step 1m m\n  m{i=\"a\"} 0+10x4\n  m{i=\"b\"} 1 2 _ _ 5\n").status())
                .isEqualTo(ScriptRunner.Status.PASSED);
        ScriptRunner.Outcome o = one(e, "eval range from 0 to 4m step 1m m\n  m{i=\"a\"} 0+10x4\n  m{i=\"b\"} 1 2 3 _ 5\n");
        assertThat(o.message()).startsWith("expected 4 float points for m{i=\"b\"}, but got 3 float points");
        assertThat(one(e, "eval range from 0 to 1m step 1m m\n  m{i=\"a\"} 0 10 20\n  m{i=\"b\"} 1 2\n").message())
                .contains("query time range cannot return this many points");
    }

    @Test
    void orderedChecksPositions() {
        FakeEngine e = new FakeEngine();
        String eval = "eval instant at 1m m\n  expect ordered\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n";
        assertThat(one(e, eval).status()).isEqualTo(ScriptRunner.Status.PASSED);
        e.reverseOrder = true;
        assertThat(one(e, eval).message()).isEqualTo("expected metric m{i=\"b\"} with 2 at position 2 but was at 1");
        assertThat(one(e, eval.replace("expect ordered", "expect no_warn")).status()).isEqualTo(ScriptRunner.Status.PASSED);
    }

    @Test
    void failures() {
        FakeEngine e = new FakeEngine();
        assertThat(one(e, "eval instant at 0 boom\n  expect fail\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 0 boom\n  expect fail msg: boom: it broke\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 0 boom\n  expect fail msg: boom\n").status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(e, "eval instant at 0 boom\n  expect fail regex: it b.oke\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval_fail instant at 0 boom\n  expected_fail_message boom: it broke\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval_fail instant at 0 boom\n  expected_fail_regexp nope\n").status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(e, "eval range from 0 to 1m step 1m boom\n  expect fail\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 0 m\n  expect fail\n").message()).isEqualTo("expected error evaluating query but got none");
        assertThat(one(e, "eval instant at 0 boom\n").message()).isEqualTo("error evaluating query: boom: it broke");
    }

    @Test
    void annotations() {
        FakeEngine e = new FakeEngine();
        e.warnings = List.of(Annotation.unpositioned("PromQL warning: careful"));
        String body = "  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n";
        assertThat(one(e, "eval instant at 1m m\n" + body).status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 1m m\n  expect no_warn\n" + body).status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(e, "eval instant at 1m m\n  expect warn\n" + body).status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 1m m\n  expect warn msg: PromQL warning: careful\n" + body).status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 1m m\n  expect warn msg: PromQL warning: other\n" + body).status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(e, "eval_warn instant at 1m m\n" + body).status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval_info instant at 1m m\n" + body).message()).isEqualTo("expected info annotations but got none");
        assertThat(one(e, "eval instant at 1m m\n  expect info\n" + body).status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(one(e, "eval instant at 1m m\n  expect no_info\n" + body).status()).isEqualTo(ScriptRunner.Status.PASSED);
        e.warnings = List.of(Annotation.unpositioned("PromQL warning: careful"), Annotation.unpositioned("PromQL warning: unexpected"));
        assertThat(one(e, "eval instant at 1m m\n  expect warn msg: PromQL warning: careful\n" + body).message())
                .isEqualTo("unexpected warn annotation \"PromQL warning: unexpected\"");
    }

    @Test
    void scalarsStringsAndRangeVectors() {
        FakeEngine e = new FakeEngine();
        assertThat(one(e, "eval instant at 1m 2.5\n  2.5\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 1m 2.5\n  3\n").message()).isEqualTo("expected scalar 3 but got 2.5");
        assertThat(one(e, "eval instant at 1m 2.5\n  {} 2.5\n").message()).startsWith("expected vector or matrix result, but got scalar");
        assertThat(one(e, "eval instant at 1m m\n  3\n").message()).startsWith("expected scalar result, but got vector");
        assertThat(one(e, "eval instant at 0 \"x\"\n  expect string \"x\"\n").status()).isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 0 \"x\"\n  expect string \"y\"\n").message()).isEqualTo("expected string \"y\" but got \"x\"");
        assertThat(one(e, "eval instant at 2m m[2m]\n  expect range vector from 1m to 2m step 1m\n  m{i=\"a\"} 10 20\n  m{i=\"b\"} 2 _\n").status())
                .isEqualTo(ScriptRunner.Status.PASSED);
        assertThat(one(e, "eval instant at 2m m[2m]\n  expect range vector from 1m to 2m step 1m\n  m{i=\"a\"} 10 21\n  m{i=\"b\"} 2 _\n").message())
                .startsWith("expected float value at index 1 (t=120000) for m{i=\"a\"} to be 21, but got 20");
    }

    @Test
    void histogramsAreUnsupportedNotFailed() {
        FakeEngine e = new FakeEngine();
        List<ScriptRunner.Outcome> out = run(e, """
                load 1m
                  h {{schema:0 sum:1 count:1 buckets:[1]}}x3
                  f 1 2 3

                eval instant at 1m h
                  h {{schema:0 sum:1 count:1 buckets:[1]}}

                eval instant at 1m h
                  {} 1

                eval instant at 1m f
                  f 2

                clear
                load_with_nhcb 1m
                  k_bucket{le="1"} 1
                  k_bucket{le="+Inf"} 2

                eval instant at 0 k
                  {} 1
                """);
        assertThat(out).extracting(ScriptRunner.Outcome::status).containsExactly(ScriptRunner.Status.UNSUPPORTED,
                ScriptRunner.Status.UNSUPPORTED, ScriptRunner.Status.PASSED, ScriptRunner.Status.UNSUPPORTED);
    }

    @Test
    void anEvalIsUnsupportedWhenOneOfItsSelectorsMatchesAHistogramSeries() {
        FakeEngine e = new FakeEngine() {
            @Override
            public List<List<io.sluice.promql.labels.LabelMatcher>> selectors(String query) {
                return List.of(List.of(io.sluice.promql.labels.LabelMatcher.equal("job", query)));
            }
        };
        List<ScriptRunner.Outcome> out = run(e, """
                load 1m
                  h{job="x"} {{count:1}}
                  f{job="y"} 1

                eval instant at 0 x
                  x 1

                eval instant at 0 x

                eval instant at 0 y
                  y 1
                """);
        // fails reading a histogram series: unsupported; passes anyway: passed; fails without one: failed
        assertThat(out).extracting(ScriptRunner.Outcome::status)
                .containsExactly(ScriptRunner.Status.UNSUPPORTED, ScriptRunner.Status.PASSED, ScriptRunner.Status.FAILED);
    }

    @Test
    void aQueryThatDoesNotParseFailsEvenWhenAFailureIsExpected() {
        FakeEngine e = new FakeEngine() {
            @Override
            public String parseError(String query) {
                return query.equals("boom") ? "1:1: parse error: nope" : null;
            }
        };
        ScriptRunner.Outcome o = one(e, "eval instant at 0 boom\n  expect fail\n");
        assertThat(o.status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(o.message()).endsWith("1:1: parse error: nope");
    }

    @Test
    void failuresAfterStartTimestampsAreUnsupported() {
        List<ScriptRunner.Outcome> out = run(new FakeEngine(), """
                load 1m
                  m@st 0 0
                  m 1 2

                eval instant at 1m m
                  m 2

                eval instant at 1m m
                  m 3

                clear

                eval instant at 1m m
                  m 3
                """);
        assertThat(out).extracting(ScriptRunner.Outcome::status).containsExactly(ScriptRunner.Status.PASSED,
                ScriptRunner.Status.UNSUPPORTED, ScriptRunner.Status.FAILED);
    }

    @Test
    void clearDropsData() {
        FakeEngine e = new FakeEngine();
        List<ScriptRunner.Outcome> out = run(e, DATA + "\nclear\n\neval instant at 1m m\n");
        assertThat(out).singleElement().satisfies(o -> assertThat(o.status()).isEqualTo(ScriptRunner.Status.PASSED));
    }

    @Test
    void atModifierVariantsRunWhenTheEngineCanRewrite() {
        FakeEngine e = new FakeEngine() {
            @Override
            public String withAtModifier(String query, long timeMs) {
                return "n";
            }
        };
        ScriptRunner.Outcome o = one(e, "eval instant at 1m m\n  m{i=\"a\"} 10\n  m{i=\"b\"} 2\n");
        assertThat(o.status()).isEqualTo(ScriptRunner.Status.FAILED);
        assertThat(o.message()).startsWith("with @ modifier, as n at -600000: ");
    }
}
