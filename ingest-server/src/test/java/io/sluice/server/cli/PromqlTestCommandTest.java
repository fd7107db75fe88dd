package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice promql-test}: a real script file through the real engine; passes, failures and the exit code. */
class PromqlTestCommandTest {
    @TempDir
    Path dir;

    @Test
    void printsEachFailureAndTheCountsLine() throws Exception {
        Path script = Files.writeString(dir.resolve("a.test"), """
                load 1m
                  http_requests_total{job="a"} 0+10x10
                  http_requests_total{job="b"} 0+20x10

                eval instant at 5m sum(rate(http_requests_total[5m]))
                  {} 0.5

                eval instant at 5m http_requests_total{job="a"}
                  http_requests_total{job="a"} 51
                """);
        CliRun run = CliRun.run("promql-test", script.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(run.out()).contains("a.test:8").contains("1 passed, 1 failed");
    }

    @Test
    void allPassingExitsZeroAndAMissingFileIsOneLine() throws Exception {
        Path script = Files.writeString(dir.resolve("ok.test"), """
                load 1m
                  x 1 2 3

                eval instant at 2m x * 2
                  {} 6
                """);
        CliRun ok = CliRun.run("promql-test", script.toString());
        assertThat(ok.out()).contains("1 passed, 0 failed");
        assertThat(ok.exitCode()).isEqualTo(ExitCodes.OK);
        CliRun missing = CliRun.run("promql-test", dir.resolve("nope.test").toString());
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(missing.err().strip()).isEqualTo("sluice: promql-test: " + dir.resolve("nope.test") + " is not a file");
    }
}
