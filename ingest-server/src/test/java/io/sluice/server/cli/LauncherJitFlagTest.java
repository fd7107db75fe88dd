package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Both launchers ({@code ./sluice} and the image's {@code docker/java.sh}) pass the same
 * {@code -XX:PerMethodRecompilationCutoff}, and this JDK takes it: a JVM started with it reports the
 * value in effect. Without the flag about one 100 M restart in ten to twenty took twice the CPU (C2
 * compiled a trap into the chunk-cut code that deoptimized on every call, never recompiling:
 * docs/design/jit.md); a JDK that dropped or renamed the flag would refuse
 * to start the server, which this catches before a release.
 */
class LauncherJitFlagTest {
    private static final Pattern CUTOFF = Pattern.compile("-XX:PerMethodRecompilationCutoff=(\\d+)");
    /** Well above cutoff/2+1 = 201 by default, the decompile sum that turned the traps into storms (225-305 seen). */
    private static final int MIN_CUTOFF = 2_000;

    @Test
    void bothLaunchersPassTheSameCutoffAndTheJvmTakesIt() throws Exception {
        int script = cutoffIn(Path.of("..", "sluice"));
        int image = cutoffIn(Path.of("..", "docker", "java.sh"));
        assertThat(image).as("docker/java.sh and ./sluice pass the same cutoff").isEqualTo(script);
        assertThat(script).as("the cutoff keeps C2's trap downgrade out of reach").isGreaterThanOrEqualTo(MIN_CUTOFF);

        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:PerMethodRecompilationCutoff=" + script, "-XX:+PrintFlagsFinal", "-version")
                .redirectErrorStream(true)
                .start();
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jvm.waitFor(1, TimeUnit.MINUTES)).as("java -version exits").isTrue();
        assertThat(jvm.exitValue()).as(out).isZero();
        assertThat(out).as("the JVM reports the launcher's value in effect")
                .containsPattern("PerMethodRecompilationCutoff\\s+= " + script + "\\s");
    }

    private static int cutoffIn(Path launcher) throws IOException {
        Matcher m = CUTOFF.matcher(Files.readString(launcher));
        assertThat(m.find()).as(launcher + " passes -XX:PerMethodRecompilationCutoff").isTrue();
        return Integer.parseInt(m.group(1));
    }
}
