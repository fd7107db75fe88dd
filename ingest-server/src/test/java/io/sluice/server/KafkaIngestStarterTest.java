package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.kafka.IngestConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka.group-instance-id}: unset, the consumers are static members named after the data
 * directory's head id (the same on every start of that directory, distinct between directories), so a
 * restart after kill -9 rejoins as the same member; {@code none} is dynamic membership; a value is kept.
 * The restart itself is exercised end to end by RestartAfterKillTest (src/test).
 */
class KafkaIngestStarterTest {
    @TempDir
    Path dir;

    private static IngestConfig configured(String... settings) throws ConfigException {
        List<String> flags = new ArrayList<>(List.of("--kafka.bootstrap-servers=h:1", "--kafka.topics=t=sluice"));
        flags.addAll(List.of(settings));
        return KafkaIngestStarter.ingestConfig(ConfigLoader.load(null, Map.of(), flags));
    }

    @Test
    void unsetIsAStaticMemberNamedAfterTheDataDirectory() throws Exception {
        Path a = dir.resolve("a");
        IngestConfig first = KafkaIngestStarter.withMembership(configured(), a);
        String headId = Files.readString(a.resolve("head.id"), StandardCharsets.US_ASCII).strip();
        assertThat(first.groupInstanceId()).isEqualTo("sluice-" + headId);

        IngestConfig again = KafkaIngestStarter.withMembership(configured(), a);
        assertThat(again.groupInstanceId()).as("the next start on the same directory").isEqualTo(first.groupInstanceId());
        IngestConfig other = KafkaIngestStarter.withMembership(configured(), dir.resolve("b"));
        assertThat(other.groupInstanceId()).as("another data directory").isNotEqualTo(first.groupInstanceId())
                .startsWith("sluice-");
    }

    @Test
    void noneIsDynamicMembershipAndAnExplicitIdIsKept() throws Exception {
        assertThat(KafkaIngestStarter.withMembership(configured("--kafka.group-instance-id=none"), dir).groupInstanceId())
                .isNull();
        assertThat(KafkaIngestStarter.withMembership(configured("--kafka.group-instance-id=ingest-7"), dir).groupInstanceId())
                .isEqualTo("ingest-7");
        assertThat(dir.resolve("head.id")).as("no head id needed for either").doesNotExist();
    }

    @Test
    void aDamagedHeadIdIsAClearError() throws IOException {
        Files.writeString(dir.resolve("head.id"), "not-a-uuid\n", StandardCharsets.US_ASCII);
        try {
            KafkaIngestStarter.withMembership(configured(), dir);
            throw new AssertionError("a head.id without a UUID was accepted");
        } catch (java.io.UncheckedIOException e) {
            assertThat(e.getMessage()).contains("head.id").contains("not-a-uuid");
        } catch (ConfigException e) {
            throw new AssertionError(e);
        }
    }
}
