package io.sluice.promql.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.promql.labels.Labels;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScriptTest {
    @Test
    void parsesCommandsInOrder() {
        Script s = Script.parse("t.test", """
                # a comment
                load 1m
                  a{x="1"} 0+1x3
                  b 5

                clear
                load_with_nhcb 30s
                  c_bucket{le="+Inf"} 1

                eval instant at 1m a
                  a{x="1"} 1
                """);
        List<Script.Command> c = s.commands();
        assertThat(c).hasSize(4);
        Script.Load l = (Script.Load) c.get(0);
        assertThat(l.line()).isEqualTo(2);
        assertThat(l.intervalMs()).isEqualTo(60_000);
        assertThat(l.series()).hasSize(2);
        assertThat(l.withNhcb()).isFalse();
        assertThat(c.get(1)).isEqualTo(new Script.Clear(6));
        assertThat(((Script.Load) c.get(2)).withNhcb()).isTrue();
        assertThat(((Script.Load) c.get(2)).intervalMs()).isEqualTo(30_000);
        Script.Eval e = (Script.Eval) c.get(3);
        assertThat(e.line()).isEqualTo(10);
        assertThat(e.query()).isEqualTo("a");
        assertThat(e.range()).isFalse();
        assertThat(e.evalMs()).isEqualTo(60_000);
        assertThat(e.expected()).hasSize(1);
        assertThat(e.expected().getFirst().series().labels()).isEqualTo(Labels.of("__name__", "a", "x", "1"));
    }

    @Test
    void rangeEvalAndExpectLines() {
        Script s = Script.parse("t.test", """
                eval range from 0 to 10m step 5m sum by (x) (rate(a[5m]))
                  expect warn msg: PromQL warning: something
                  expect info regex: metric might not .*
                  {x="1"} 1 _ 3
                """);
        Script.Eval e = (Script.Eval) s.commands().getFirst();
        assertThat(e.range()).isTrue();
        assertThat(e.startMs()).isZero();
        assertThat(e.endMs()).isEqualTo(600_000);
        assertThat(e.stepMs()).isEqualTo(300_000);
        assertThat(e.query()).isEqualTo("sum by (x) (rate(a[5m]))");
        assertThat(e.expects(Script.ExpectType.WARN)).singleElement()
                .satisfies(x -> assertThat(x.message()).isEqualTo("PromQL warning: something"));
        assertThat(e.expects(Script.ExpectType.INFO).getFirst().matches("PromQL info: metric might not be a counter")).isTrue();
        assertThat(e.expected().getFirst().position()).isEqualTo(1);
    }

    @Test
    void oldFormsAndFailMessages() {
        Script s = Script.parse("t.test", """
                eval_fail instant at 0 foo
                  expected_fail_message vector cannot contain metrics with the same labelset

                eval_ordered instant at 1m sort(foo)
                  foo{a="2"} 1
                  foo{a="1"} 2

                eval_warn range from 0 to 1m step 1m foo

                eval_info instant at 0 foo

                eval_fail instant at 0 bar
                  expected_fail_regexp same label.*set

                eval instant at 0 baz
                  expect fail msg: boom
                  expect no_info
                """);
        Script.Eval fail = (Script.Eval) s.commands().get(0);
        assertThat(fail.isFail()).isTrue();
        assertThat(fail.oldFailMessage()).isEqualTo("vector cannot contain metrics with the same labelset");
        Script.Eval ordered = (Script.Eval) s.commands().get(1);
        assertThat(ordered.isOrdered()).isTrue();
        assertThat(ordered.expected()).extracting(Script.ExpectedSeries::position).containsExactly(1, 2);
        assertThat(((Script.Eval) s.commands().get(2)).oldWarn()).isTrue();
        assertThat(((Script.Eval) s.commands().get(3)).oldInfo()).isTrue();
        assertThat(((Script.Eval) s.commands().get(4)).oldFailRegex().matcher("x same labelset").find()).isTrue();
        Script.Eval e = (Script.Eval) s.commands().get(5);
        assertThat(e.isFail()).isTrue();
        assertThat(e.expects(Script.ExpectType.FAIL).getFirst().matches("boom")).isTrue();
        assertThat(e.expects(Script.ExpectType.FAIL).getFirst().matches("boom!")).isFalse();
        assertThat(e.expects(Script.ExpectType.NO_INFO)).hasSize(1);
    }

    @Test
    void scalarsStringsAndRangeVectors() {
        Script s = Script.parse("t.test", """
                eval instant at 0 1 + 1
                  2

                eval instant at 0 -0x10
                  -16

                eval instant at 0 "a"
                  expect string "a\\tb"

                eval instant at 1m m[1m]
                  expect range vector from 10s to 1m step 10s
                  m 1 2 3 4 5 6
                """);
        Script.Eval scalar = (Script.Eval) s.commands().get(0);
        assertThat(scalar.expectScalar()).isTrue();
        assertThat(scalar.scalar()).isEqualTo(2);
        assertThat(((Script.Eval) s.commands().get(1)).scalar()).isEqualTo(-16);
        Script.Eval str = (Script.Eval) s.commands().get(2);
        assertThat(str.expectedString()).isEqualTo("a\tb");
        assertThat(str.excludeFromRangeQuery()).isTrue();
        Script.Eval rv = (Script.Eval) s.commands().get(3);
        assertThat(rv.expectRangeVector()).isTrue();
        assertThat(rv.startMs()).isEqualTo(10_000);
        assertThat(rv.endMs()).isEqualTo(60_000);
        assertThat(rv.stepMs()).isEqualTo(10_000);
        assertThat(rv.evalMs()).isEqualTo(60_000);
    }

    @Test
    void aSeriesGivenTwiceInOneLoadKeepsTheLaterLine() {
        Script s = Script.parse("t.test", "load 1m\n  m{a=\"1\"} 1\n  m{a=\"2\"} 2\n  m{a=\"1\"} 3\n");
        Script.Load l = (Script.Load) s.commands().getFirst();
        assertThat(l.series()).hasSize(2);
        assertThat(l.series()).extracting(sd -> sd.values()[0]).containsExactly(2.0, 3.0);
    }

    @Test
    void scalarParsingAsGo() {
        assertThat(Script.parseScalar("1e3")).isEqualTo(1000.0);
        assertThat(Script.parseScalar("-Inf")).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(Script.parseScalar("NaN")).isNaN();
        assertThat(Script.parseScalar("0x1F")).isEqualTo(31.0);
        assertThat(Script.parseScalar("{} 1")).isNull();
        assertThat(Script.parseScalar("1d")).isNull();
        assertThat(Script.parseScalar("m")).isNull();
    }

    @Test
    void errorsNameTheLine() {
        assertThatThrownBy(() -> Script.parse("f.test", "load 1m\n  m 1\n  m 1+\n"))
                .isInstanceOf(ScriptException.class).hasMessageStartingWith("f.test:3: ");
        assertThatThrownBy(() -> Script.parse("f.test", "\nfrobnicate\n"))
                .hasMessage("f.test:2: invalid command \"frobnicate\"");
        assertThatThrownBy(() -> Script.parse("f.test", "eval instant at 0 m\n  m 1 2\n"))
                .hasMessageContaining("expecting multiple values in instant evaluation not allowed");
        assertThatThrownBy(() -> Script.parse("f.test", "eval instant at 0 m\n  expect info\n  expect no_info\n"))
                .hasMessageContaining("info and no_info cannot be used together");
        assertThatThrownBy(() -> Script.parse("f.test", "eval range from 1m to 0 step 1m m\n"))
                .hasMessageContaining("end timestamp (0) is before start timestamp (1m)");
        assertThatThrownBy(() -> Script.parse("f.test", "load 1x\n"))
                .hasMessageContaining("invalid step definition");
    }
}
