package io.sluice.promql.script;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every {@code promql/*.test} script of the test resources through Sluice's engine, one dynamic test
 * per eval: a failing eval fails the build; an eval that needs native histograms is skipped.
 */
class PromqlScriptsTest {
    @TestFactory
    Stream<DynamicNode> scripts() throws IOException, URISyntaxException {
        URL dir = PromqlScriptsTest.class.getClassLoader().getResource("promql");
        if (dir == null) {
            return Stream.empty();
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of(dir.toURI()))) {
            files = s.filter(p -> p.toString().endsWith(".test")).sorted().toList();
        }
        ScriptRunner runner = new ScriptRunner(new EngineScriptEngine());
        List<DynamicNode> nodes = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString();
            Script script;
            try {
                script = Script.parse(name, Files.readString(f, StandardCharsets.UTF_8));
            } catch (ScriptException e) {
                nodes.add(DynamicTest.dynamicTest(name, () -> fail(e.getMessage())));
                continue;
            }
            List<DynamicTest> tests = new ArrayList<>();
            for (ScriptRunner.Outcome o : runner.run(script)) {
                tests.add(DynamicTest.dynamicTest("line " + o.line() + ": " + o.query(), () -> {
                    switch (o.status()) {
                        case PASSED -> { }
                        case UNSUPPORTED -> abort(o.message());
                        case FAILED -> fail(o.file() + ":" + o.line() + ": " + o.query() + "\n    " + o.message());
                    }
                }));
            }
            nodes.add(DynamicContainer.dynamicContainer(name, tests.stream()));
        }
        return nodes.stream();
    }
}
