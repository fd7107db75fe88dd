package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.KafkaApi;
import io.sluice.server.TestHttp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `sluice demo` driven as a user would: a separate JVM (the test classpath, the JVM flags of
 * ./sluice), its printed HTTP address, /-/ready and /metrics over real HTTP, then SIGTERM (what
 * Ctrl-C and `kill` send) and a clean exit 0.
 */
class DemoProcessTest {
    private static final Pattern ADDRESS = Pattern.compile("HTTP: http://127\\.0\\.0\\.1:(\\d+)/metrics");
    private static final long DEADLINE_NS = TimeUnit.MINUTES.toNanos(3);

    @TempDir
    Path dir;

    @Test
    void demoStartsIngestsServesAndStopsCleanly() throws Exception {
        assumeTrue(KafkaApi.isReal(), KafkaApi.SKIP_REASON);
        Path stdout = dir.resolve("demo.out"); // files, not pipes: reading a pipe races with the exit
        Path stderr = dir.resolve("demo.err");
        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx768m",
                "-Djava.io.tmpdir=" + dir, "-cp", System.getProperty("java.class.path"), "io.sluice.tools.Main",
                "demo", "--series=300", "--rate=3000", "--partitions=2", "--http.port=0", "--head.shards=2")
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            InetSocketAddress http = new InetSocketAddress("127.0.0.1", awaitPort(stdout, demo, stderr));
            awaitReady(http, demo, stderr);
            awaitAppended(http, demo, stderr);
            awaitLine(stdout, "samples/s", demo, stderr); // the progress line

            demo.destroy(); // SIGTERM
            assertThat(demo.waitFor(2, TimeUnit.MINUTES)).as("demo exits after SIGTERM").isTrue();
            assertThat(demo.exitValue()).as(Files.readString(stderr)).isZero();
            assertThat(Files.readAllLines(stdout)).contains("Demo stopped cleanly.");
            assertThat(Files.readString(stderr)).doesNotContain("[ERROR]").doesNotContain("Exception");
            try (var left = Files.list(dir)) {
                assertThat(left.filter(p -> p.getFileName().toString().startsWith("sluice-demo-"))).isEmpty();
            }
        } finally {
            demo.destroyForcibly();
        }
    }

    private static int awaitPort(Path stdout, Process demo, Path stderr) throws Exception {
        String line = awaitLine(stdout, "HTTP: ", demo, stderr);
        Matcher m = ADDRESS.matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static String awaitLine(Path stdout, String fragment, Process demo, Path stderr) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NS;
        List<String> out = List.of();
        while (System.nanoTime() < deadline) {
            out = Files.readAllLines(stdout);
            for (String line : out) {
                if (line.contains(fragment)) {
                    return line;
                }
            }
            checkAlive(demo, stderr, out.toString());
            Thread.sleep(50); // polling a child process's output, not synchronizing threads
        }
        throw new AssertionError("no line with '" + fragment + "' in " + out + "; stderr: " + Files.readString(stderr));
    }

    private static void awaitReady(InetSocketAddress http, Process demo, Path stderr) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NS;
        HttpResponse<String> ready = TestHttp.get(http, "/-/ready");
        while (ready.statusCode() != 200) {
            checkAlive(demo, stderr, ready.body());
            assertThat(System.nanoTime()).as("ready in time; last: " + ready.body()).isLessThan(deadline);
            Thread.sleep(100);
            ready = TestHttp.get(http, "/-/ready");
        }
        assertThat(ready.body()).isEqualTo("Sluice is Ready.\n");
    }

    private static void awaitAppended(InetSocketAddress http, Process demo, Path stderr) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NS;
        double appended = 0;
        while (!(appended > 0)) {
            checkAlive(demo, stderr, "");
            assertThat(System.nanoTime()).as("samples appended in time").isLessThan(deadline);
            Thread.sleep(100);
            HttpResponse<String> metrics = TestHttp.get(http, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            appended = TestHttp.sample(metrics.body(), "sluice_samples_appended_total");
        }
    }

    private static void checkAlive(Process demo, Path stderr, String context) throws IOException {
        if (!demo.isAlive()) {
            throw new AssertionError("demo exited with " + demo.exitValue() + " (" + context + "); stderr: "
                    + Files.readString(stderr));
        }
    }
}
