package io.sluice.promql.eval;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.script.Script;
import io.sluice.promql.script.ScriptRunner;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine passes its own scripts, whose every expectation was checked against Prometheus' engine. */
class EvalScriptTest {
    @Test
    void evalEngineScriptPasses() throws Exception {
        assertPasses("eval-engine.test", 30);
    }

    @Test
    void differentialScriptPasses() throws Exception {
        assertPasses("eval-differential.test", 700);
    }

    private void assertPasses(String name, int atLeast) throws Exception {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/promql/" + name)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<ScriptRunner.Outcome> out = new ScriptRunner(UpstreamConformance.scriptEngine()).run(Script.parse(name, text));
        assertThat(out).hasSizeGreaterThan(atLeast);
        assertThat(out).allSatisfy(o -> assertThat(o.status()).as(o.toString()).isEqualTo(ScriptRunner.Status.PASSED));
    }
}
