package io.sluice.server;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether io.sluice.server.kafka is the real one or the kafka-api-stub placeholders (see ingest-server/pom.xml). */
public final class KafkaApi {
    private KafkaApi() {
    }

    /** True when the consumers are merged; tests that need a broker skip themselves otherwise. */
    public static boolean isReal() {
        return Files.exists(Path.of("src/main/java/io/sluice/server/kafka/KafkaIngest.java"));
    }

    public static final String SKIP_REASON = "built with the kafka-api-stub profile: io.sluice.server.kafka is not merged yet";
}
