package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ingest-core knows nothing of Kafka, Netty, Micrometer or the server (server -> core -> wal).
 * The enforcer's bannedDependencies keeps the jars off the class path; this test also catches a
 * fully qualified name or an import that slipped in through a transitive dependency.
 */
class LayeringTest {
    private static final Pattern FORBIDDEN =
            Pattern.compile("\\b(org\\.apache\\.kafka|io\\.netty|io\\.micrometer|io\\.sluice\\.server|io\\.sluice\\.bench)\\.");

    @Test
    void coreNeverNamesKafkaNettyMicrometerOrTheServer() throws IOException {
        List<Path> sources;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            sources = files.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(sources).as("main sources found").isNotEmpty();
        List<String> offending = new ArrayList<>();
        for (Path source : sources) {
            var m = FORBIDDEN.matcher(Files.readString(source));
            while (m.find()) {
                offending.add(source.getFileName() + " names " + m.group(1));
            }
        }
        assertThat(offending).isEmpty();
    }

    @Test
    void theForbiddenPatternCatchesWhatItShould() {
        assertThat(FORBIDDEN.matcher("import org.apache.kafka.clients.consumer.KafkaConsumer;").find()).isTrue();
        assertThat(FORBIDDEN.matcher("io.netty.buffer.ByteBuf b;").find()).isTrue();
        assertThat(FORBIDDEN.matcher("import io.sluice.wal.Wal;").find()).isFalse();
    }
}
