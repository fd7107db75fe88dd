package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Both launchers ({@code ./sluice} and the image's {@code docker/java.sh}) give the JVM the same heap and
 * memory flags (docs/design/memory.md) and the same {@code MALLOC_ARENA_MAX}, and this JDK takes every one
 * of them with the value asked: a JDK that dropped or renamed one would refuse to start the server.
 */
class LauncherMemoryFlagsTest {
    /** The flags of docs/design/memory.md: heap sizing and returning memory; the values are the launchers'. */
    private static final Pattern FLAG = Pattern.compile(
            "-(?:XX:(MaxRAMPercentage|TrimNativeHeapInterval)=(\\d+)|XX:(G1HeapRegionSize)=(\\d+)m|(Xms)(\\d+)m)");
    private static final Pattern ARENAS = Pattern.compile("MALLOC_ARENA_MAX=\"\\$\\{MALLOC_ARENA_MAX:-(\\d+)}\"");

    @Test
    void bothLaunchersPassTheSameMemoryFlagsAndTheJvmTakesThem() throws Exception {
        String script = Files.readString(Path.of("..", "sluice"));
        String image = Files.readString(Path.of("..", "docker", "java.sh"));
        List<String> flags = flags(script);
        assertThat(flags(image)).as("docker/java.sh and ./sluice pass the same memory flags").isEqualTo(flags);
        assertThat(flags).as("./sluice's memory flags").hasSize(4);
        assertThat(arenas(image)).as("both launchers set the same MALLOC_ARENA_MAX default").isEqualTo(arenas(script));

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.addAll(List.of("-XX:+UseG1GC", "-XX:+PrintFlagsFinal", "-version"));
        Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(jvm.waitFor(1, TimeUnit.MINUTES)).as("java -version exits").isTrue();
        assertThat(jvm.exitValue()).as(out).isZero();
        for (String flag : flags) {
            Matcher m = FLAG.matcher(flag);
            assertThat(m.matches()).isTrue();
            if (m.group(1) != null) {
                String value = m.group(1).equals("MaxRAMPercentage") ? m.group(2) + "\\.0+" : m.group(2);
                assertThat(out).as("the JVM reports %s in effect", flag).containsPattern(m.group(1) + "\\s+= " + value + "\\s");
            } else if (m.group(3) != null) {
                long bytes = Long.parseLong(m.group(4)) << 20;
                assertThat(out).as("the JVM reports %s in effect", flag).containsPattern(m.group(3) + "\\s+= " + bytes + "\\s");
            } else {
                long bytes = Long.parseLong(m.group(6)) << 20;
                assertThat(out).as("the JVM reports %s in effect", flag)
                        .containsPattern("InitialHeapSize\\s+= " + bytes + "\\s")
                        .containsPattern("MinHeapSize\\s+= " + bytes + "\\s");
            }
        }
    }

    private static List<String> flags(String launcher) {
        List<String> found = new ArrayList<>();
        Matcher m = FLAG.matcher(launcher);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    private static int arenas(String launcher) {
        Matcher m = ARENAS.matcher(launcher);
        assertThat(m.find()).as("the launcher exports MALLOC_ARENA_MAX").isTrue();
        return Integer.parseInt(m.group(1));
    }
}
