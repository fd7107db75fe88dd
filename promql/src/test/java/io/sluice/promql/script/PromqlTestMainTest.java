package io.sluice.promql.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromqlTestMainTest {
    @TempDir
    Path dir;

    private String run(int expectedExit, Path... files) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code = PromqlTestMain.run(List.of(files), new FakeEngine(), new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(expectedExit);
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void printsFailuresAndTheCounts() throws IOException {
        Path a = Files.writeString(dir.resolve("a.test"), """
                load 1m
                  m 1 2 3
                  h {{count:1}}

                eval instant at 1m m
                  m 2

                eval instant at 2m m
                  m 4

                eval instant at 0 h
                  h {{count:1}}
                """);
        String out = run(1, a);
        assertThat(out).contains(a + ":8: m\n    expected 4 for m{} but got 3");
        assertThat(out.lines().toList().getLast()).isEqualTo("1 passed, 1 failed, 1 unsupported");
    }

    @Test
    void exitsZeroWhenNothingFails() throws IOException {
        Path a = Files.writeString(dir.resolve("a.test"), "load 1m\n  m 1\n\neval instant at 0 m\n  m 1\n");
        assertThat(run(0, a)).isEqualTo("1 passed, 0 failed, 0 unsupported\n");
    }

    @Test
    void aScriptThatDoesNotParseIsOneFailure() throws IOException {
        Path a = Files.writeString(dir.resolve("a.test"), "frob\n");
        String out = run(1, a, dir.resolve("missing.test"));
        assertThat(out).contains("a.test:1: invalid command \"frob\"");
        assertThat(out).contains("missing.test: cannot read");
        assertThat(out.lines().toList().getLast()).isEqualTo("0 passed, 2 failed, 0 unsupported");
    }
}
