package io.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** wal/ depends on nothing of Sluice and on no library: only java.* and its own package. */
class LayeringTest {
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+)", Pattern.MULTILINE);

    @Test
    void walImportsOnlyTheJdkAndItself() throws IOException {
        List<String> offending = new ArrayList<>();
        List<Path> sources;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            sources = files.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(sources).as("main sources found").isNotEmpty();
        for (Path source : sources) {
            Matcher m = IMPORT.matcher(Files.readString(source));
            while (m.find()) {
                String imported = m.group(1);
                boolean allowed = imported.startsWith("java.") || imported.startsWith("io.sluice.wal");
                if (!allowed) {
                    offending.add(source.getFileName() + " imports " + imported);
                }
            }
            assertThat(Files.readString(source)).as(source + " names another Sluice module")
                    .doesNotContainPattern("io\\.sluice\\.(core|server|bench)");
        }
        assertThat(offending).as("imports outside java.* and io.sluice.wal").isEmpty();
    }
}
