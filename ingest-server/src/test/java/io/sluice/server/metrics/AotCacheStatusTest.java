package io.sluice.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AotCacheStatus} in real JVMs: a cache trained from a small jar (the JDK builds caches from jar
 * files only) is reported in use; the same cache under a JVM flag it was not trained with, and a
 * missing cache file, which the JVM both skips (the first with one warning, the second silently), are
 * reported NOT in use; no cache is reported as nothing; a training run as training.
 */
class AotCacheStatusTest {
    @TempDir
    static Path dir;
    static Path jar;
    static Path cache;

    @BeforeAll
    static void trainACache() throws Exception {
        jar = dir.resolve("probe.jar");
        writeJar(jar, AotCacheStatusProbe.class, AotCacheStatus.class);
        cache = dir.resolve("probe.aot");
        Run training = probe("-XX:AOTCacheOutput=" + cache, "-Xlog:aot=error");
        assertThat(training.exit).as(training.output).isZero();
        assertThat(training.output).contains("JVM AOT training run: the AOT cache " + cache + " is written");
        assertThat(cache).as(training.output).isNotEmptyFile();
    }

    @Test
    void aCacheTheJvmMapsIsInUse() throws Exception {
        Run run = probe("-XX:AOTCache=" + cache);
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output).contains("JVM AOT cache " + cache + " in use").doesNotContain("NOT in use")
                .contains("gauge=1");
    }

    @Test
    void aCacheTrainedWithOtherFlagsIsNotInUse() throws Exception {
        Run run = probe("-XX:AOTCache=" + cache, "-XX:+UseCompactObjectHeaders");
        assertThat(run.exit).as(run.output).isZero(); // the JVM still starts: a refused cache is never fatal
        assertThat(run.output).contains("JVM AOT cache " + cache + " NOT in use").contains("gauge=0");
    }

    @Test
    void aMissingCacheIsNotInUse() throws Exception {
        Path missing = dir.resolve("missing.aot");
        Run run = probe("-XX:AOTCache=" + missing);
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output).contains("JVM AOT cache " + missing + " NOT in use").contains("gauge=0");
    }

    @Test
    void withoutACacheThereIsNothingToSay() throws Exception {
        Run run = probe();
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output).contains("status=[]").contains("gauge=0");
    }

    @Test
    void describesEachCase() {
        assertThat(new AotCacheStatus("", "", true).describe()).isEmpty();
        assertThat(new AotCacheStatus(null, null, false).requested()).isFalse();
        assertThat(new AotCacheStatus("/c.aot", "", true).inUse()).isTrue();
        assertThat(new AotCacheStatus("/c.aot", "", false).describe()).startsWith("JVM AOT cache /c.aot NOT in use");
        assertThat(new AotCacheStatus("", "/o.aot", true).training()).isTrue();
    }

    private record Run(int exit, String output) {
    }

    private static Run probe(String... jvmOptions) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", jar.toString(), AotCacheStatusProbe.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes(); // until the JVM (and a training's assembly) exits
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static void writeJar(Path jar, Class<?>... classes) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            for (Class<?> type : classes) {
                String name = type.getName().replace('.', '/') + ".class";
                out.putNextEntry(new JarEntry(name));
                try (InputStream in = type.getClassLoader().getResourceAsStream(name)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
    }
}
