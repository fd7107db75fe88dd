package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./sluice} rebuilds its jar when a source of any module in it is newer than the jar: the launcher's
 * own {@code stale} function, run by bash over a scratch tree with the repository's root pom, sees a change
 * in every module the jar holds (the PromQL engine among them) and ignores the benchmarks.
 */
class LauncherRebuildTest {
    private static final Pattern STALE = Pattern.compile("(?ms)^stale\\(\\) \\{\\n.*?^}\\n");

    @TempDir
    Path root;

    @Test
    void aSourceChangeInAnyModuleOfTheJarRebuildsItAndABenchmarkChangeDoesNot() throws Exception {
        Matcher m = STALE.matcher(Files.readString(Path.of("..", "sluice")));
        assertThat(m.find()).as("./sluice defines stale()").isTrue();
        String stale = m.group();
        Files.copy(Path.of("..", "pom.xml"), root.resolve("pom.xml"));
        Path jar = Files.createDirectories(root.resolve("tools/target")).resolve("sluice.jar");
        Files.writeString(jar, "jar");
        FileTime built = FileTime.fromMillis(System.currentTimeMillis());
        String[] modules = {"wal", "ingest-core", "promql", "ingest-server", "tools", "benchmarks"};
        for (String module : modules) {
            Path source = Files.createDirectories(root.resolve(module + "/src/main/java")).resolve("A.java");
            Files.writeString(source, "class A {}");
            Files.setLastModifiedTime(source, FileTime.fromMillis(built.toMillis() - 60_000));
        }
        Files.setLastModifiedTime(root.resolve("pom.xml"), FileTime.fromMillis(built.toMillis() - 60_000));
        Files.setLastModifiedTime(jar, built);
        assertThat(run(stale)).as("nothing newer than the jar").isEqualTo("fresh");

        for (String module : modules) {
            Path source = root.resolve(module + "/src/main/java/A.java");
            Files.setLastModifiedTime(source, FileTime.fromMillis(built.toMillis() + 60_000));
            assertThat(run(stale)).as("a newer source in %s", module).isEqualTo(module.equals("benchmarks") ? "fresh" : "stale");
            Files.setLastModifiedTime(source, FileTime.fromMillis(built.toMillis() - 60_000));
        }
        Path proto = Files.createDirectories(root.resolve("ingest-server/src/main/proto")).resolve("a.proto");
        Files.writeString(proto, "syntax = \"proto3\";");
        Files.setLastModifiedTime(proto, FileTime.fromMillis(built.toMillis() + 60_000));
        assertThat(run(stale)).as("a newer .proto").isEqualTo("stale");
    }

    private String run(String stale) throws Exception {
        String script = "root='" + root + "'; jar=\"$root/tools/target/sluice.jar\"\n" + stale
                + "if stale; then echo stale; else echo fresh; fi\n";
        Process bash = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(bash.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(out).isZero();
        return out;
    }
}
